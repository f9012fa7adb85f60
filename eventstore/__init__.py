"""Storage of saved games (log-format.md): envelopes, hash chains, JSONL files, a SQLite library.

The store knows envelopes, not game rules: it never imports `wecore` or `cli`. Modules:
`canonical` (hashing, the fingerprint), `envelope` (the envelope, writing one), `verify`
(integrity checks), `persistence` (the interface every backend implements, and the base that
seals), one module per backend: `jsonl` (one game per file), `sqlite` (the game library, with
`sqlite_schema` and `sqlite_import`), `memory` (in memory, for tests and simulations); `follow`
(a log or a library game followed as it grows); `errors`.
Nothing is imported here, so `import eventstore.x` stays cheap.
"""
