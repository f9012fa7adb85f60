"""The application: use cases over the core (wecore) and the store (eventstore), written once
and used by both faces, the `we` commands and the HTTP service (`we serve`)."""
