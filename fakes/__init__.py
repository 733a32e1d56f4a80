"""Local fakes of the services the bot talks to (GitHub, Anthropic, Gemini, OpenAI): HTTP servers
on 127.0.0.1 with the real wire formats, and a scripted LLM provider. Shared by tests/ and bench/.
"""
