"""Storage of saved games (log-format.md): envelopes, hash chains, JSONL files, game libraries.

The store knows envelopes, not game rules: it never imports `wecore` or `cli`. Modules:
`canonical` (hashing, the fingerprint), `envelope` (the envelope, writing one), `limits` (the
format's limits on a line and its values), `logfile` (a log file opened and read as lines),
`integrity` (verifying a log's integrity) and `problems` (what it finds, as kinds and codes),
`persistence` (the interface every backend implements, and the base that seals), one module
per backend: `jsonl` (one game per file), `sqlite` (the game library, with `sqlite_schema`, its
layout), `postgres` (the game library on PostgreSQL), `memory` (in
memory, for tests and simulations); `sql_library` (what the two libraries share: every use of
one, written once); `as_written` (the lines an import keeps as their file wrote them, so an
export gives the file back byte for byte); `libraries` (where a library is, a file or a URL, and
opening it with its backend); `follow` (a log or a library game followed as it grows); `receipts` (a player's
signed receipt of a game's end: its format, its signature, kept beside a log file); `errors`.
Nothing is imported here, so `import eventstore.x` stays cheap.
"""
