"""git for the service: the repo cache, session checkouts, commit and push with askpass tokens."""
