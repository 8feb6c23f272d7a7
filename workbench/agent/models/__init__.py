"""Model adapters: the `ModelClient` interface every model speaks (`client`), picking one from a
model string and settings (`choice`), and the adapters: litellm (`litellm_client`, with its
OpenAI message format), a scripted JSON file (`scripted`) and the offline demo (`demo`).

May import `messages`, `tool`, `config`, `errors`, `skills` and `processes.forkserver`; the loop's
retries (`agent.model_call`) sit above this package and call into it.
"""
