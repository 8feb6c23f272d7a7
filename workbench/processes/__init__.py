"""Child processes: the warm interpreter that has done the heavy imports once and forks runs from
there (`forkserver`, its client, and `warm_server`), the one runner that starts a child
`workbench` run warm or cold and ends it for sure (`child`), and the sweep that finds what a child
left running (`strays`).

Sub-agents start their children here; so will sweeps, evals and the sandbox's wrapping.
May import `config`, `paths` and `errors` only.
"""
