#!/bin/sh
# Install crawler-gui for this user, without Python: the app folder into ~/.local/lib/crawler-gui,
# a crawler-gui command into ~/.local/bin, and the desktop entry, icon and AppStream data into
# ~/.local/share, where desktops look for them. PREFIX=/some/dir sh install.sh installs there
# instead. Run it again to update; ~/.local/lib/crawler-gui/uninstall.sh removes it all again.
set -eu

here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
prefix=${PREFIX:-"$HOME/.local"}
app="$prefix/lib/crawler-gui"
desktop_id=io.github.crawler_gui

if [ ! -x "$here/crawler-gui/crawler-gui" ]; then
    echo "install.sh: run it from the unpacked release folder (crawler-gui/ is not next to it)" >&2
    exit 1
fi
if [ -e "$app" ] && [ ! -d "$app/_internal" ]; then
    echo "install.sh: $app exists and is not a crawler-gui install; move it away first" >&2
    exit 1
fi

mkdir -p "$prefix/lib" "$prefix/bin" "$prefix/share/applications" \
    "$prefix/share/icons/hicolor/scalable/apps" "$prefix/share/metainfo"
rm -rf "$app.new"
cp -RP "$here/crawler-gui" "$app.new"
cp "$here/uninstall.sh" "$app.new/uninstall.sh"
rm -rf "$app"
mv "$app.new" "$app"
ln -sfn "$app/crawler-gui" "$prefix/bin/crawler-gui"

# The desktop entry runs the installed binary by its full path: ~/.local/bin is not on every
# desktop session's PATH.
sed -e "s|^Exec=crawler-gui|Exec=\"$app/crawler-gui\"|" \
    -e "s|^TryExec=crawler-gui|TryExec=$app/crawler-gui|" \
    "$here/share/applications/$desktop_id.desktop" \
    >"$prefix/share/applications/$desktop_id.desktop"
cp "$here/share/icons/hicolor/scalable/apps/$desktop_id.svg" \
    "$prefix/share/icons/hicolor/scalable/apps/$desktop_id.svg"
cp "$here/share/metainfo/$desktop_id.metainfo.xml" "$prefix/share/metainfo/$desktop_id.metainfo.xml"

if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$prefix/share/applications" || true
fi
if command -v gtk-update-icon-cache >/dev/null 2>&1; then
    gtk-update-icon-cache -q -t "$prefix/share/icons/hicolor" || true
fi

echo "crawler-gui is installed in $app"
case ":$PATH:" in
*":$prefix/bin:"*) echo "run: crawler-gui --demo   (or pick Crawler GUI in your desktop's menu)" ;;
*) echo "run: $prefix/bin/crawler-gui --demo   ($prefix/bin is not on your PATH)" ;;
esac
