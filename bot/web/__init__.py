"""The operator web view: a read-only history of the bot's work under /ui/ on `serve`'s port.

settings (what the view needs, from Settings), oidc (the issuer: discovery, the code exchange,
the ID token's verification), cookies (the signed session cookie and its server-side record),
signin (/ui/login, /ui/callback, POST /ui/logout), access (who sees which channel), queries
(the history as page data), pages (Jinja2 templates, autoescaped), headers (every response's
security headers), app (the routes, and `build_web` for the composition root).

A front end beside bot.inbound: it reads the store and the history, and posts nothing.
"""
