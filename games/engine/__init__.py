"""Pure-Python mahjong rules engine. No Django imports anywhere under this package.

    tiles.py      faces 0..33 and the mpsz notation
    melds.py      exposed melds and concealed kongs
    winning.py    win detection with wilds and the white stand-in, waits
    events.py     the command language: Action (commands), Illegal (coded errors), the events
                  and who may see them, `from_wire` (the one parser of a command)
    game.py       the state machine of one hand, common to every variant: apply(state, action)
    variants/     the rule sets: a registry (`variants.get(name)`) of `Variant` objects
                  (base.py lists what the state machine asks them); taizhou.py
    view.py       what one seat may see of a state
    contract.py   the JSON scoring/settlement contracts
"""
