"""Test defaults: the in-memory channel layer unless the run asks for Redis (CHANNEL_LAYER=redis).

pytest-django imports the settings before this file runs, so besides the environment (for
subprocesses) the already-loaded settings are switched too.
"""

import os

from django.conf import settings

from mahjong_site.settings import channel_layers_for

if "CHANNEL_LAYER" not in os.environ:
    os.environ["CHANNEL_LAYER"] = "memory"
    settings.CHANNEL_LAYER = "memory"
    settings.CHANNEL_LAYERS = channel_layers_for("memory", settings.REDIS_URL)
