from bot.cli import console

console()
