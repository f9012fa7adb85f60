"""`we` in the game-AI ecosystem: White Elephant as an OpenSpiel game (`weai.openspiel_game`,
which registers `python_white_elephant` with pyspiel on import) and as a PettingZoo AEC
environment (`weai.pettingzoo_env`). Both need the `ai` extra (open-spiel, pettingzoo); this
package itself imports neither, and both play through `weai.match`, which plays by wecore's
rules (no second copy of them) and keeps the game as the log's payloads.
"""
