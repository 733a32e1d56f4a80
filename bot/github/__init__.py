"""GitHub as the code host: authentication (token or App), the PyGithub adapter, its typed
errors, the owner/name of the repository, and keeping tokens out of logs.

The only package that imports PyGithub.
"""
