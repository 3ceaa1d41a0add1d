"""One match from its entries to a sealed hand log (run_match), and the bot-process pool that leagues reuse."""
