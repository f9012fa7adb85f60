"""The routes of `we serve`, a concern a module; service.http builds the app that includes them."""
