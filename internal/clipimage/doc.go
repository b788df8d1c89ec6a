// Package clipimage reads an image from the system clipboard through the
// platform's own tools, as the established harness does: wl-paste on a
// Wayland session (and under WSL), else xclip, on Linux; PowerShell's
// System.Windows.Forms.Clipboard on Windows and, when Linux has no image,
// under WSL; osascript (the clipboard as PNG) on macOS, where the
// established harness uses a native module instead and pbpaste cannot
// give images.
//
// Only the image types models take are read (PNG, JPEG, WebP, GIF, in that
// order of preference); a clipboard holding another image type counts as
// holding none.
package clipimage
