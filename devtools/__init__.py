"""Development support shared by the tests (tests/) and the benchmarks (bench/).

Neither of those two trees imports the other: what both need lives here. The platform and the
packages that ship (games, sandbox, arena_cli) never import this package.
"""
