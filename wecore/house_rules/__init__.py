"""The constraint rules: house rules that add no move but change what the printed moves allow
(the attics' size, the caps on steals), one module each, with its declaration, its refusal and
its counting. `wecore.rulesets` is their one registry; the house rules that add a move are kinds
of move (`wecore.kinds`), declared in the same registry."""
