"""Data files shipped with crawler-gui (hub presets, translations, the icon), read with
importlib.resources. This file makes the folder a regular package: setuptools' editable
finder cannot map a nested namespace package (crawler_gui.resources -> resources/)."""
