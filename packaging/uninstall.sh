#!/bin/sh
# Remove what install.sh put into ~/.local (or PREFIX): the app folder, the crawler-gui command,
# the desktop entry, icon and AppStream data. Your pools, pages and settings are left alone.
set -eu

prefix=${PREFIX:-"$HOME/.local"}
app="$prefix/lib/crawler-gui"
desktop_id=io.github.crawler_gui

rm -f "$prefix/share/applications/$desktop_id.desktop" \
    "$prefix/share/icons/hicolor/scalable/apps/$desktop_id.svg" \
    "$prefix/share/metainfo/$desktop_id.metainfo.xml"
if [ -L "$prefix/bin/crawler-gui" ] && [ "$(readlink "$prefix/bin/crawler-gui")" = "$app/crawler-gui" ]; then
    rm -f "$prefix/bin/crawler-gui"
fi
if [ -d "$app/_internal" ]; then
    rm -rf "$app"
fi
if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$prefix/share/applications" || true
fi
echo "crawler-gui is removed from $prefix (pools, pages and settings are kept)"
