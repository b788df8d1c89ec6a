// Package termcaps decides, in one place, what the terminal pi's
// interactive session draws on can do and what the person asked for: true
// colour, OSC 8 hyperlinks, an inline image protocol (kitty or iTerm2),
// OSC 9;4 progress, OSC 7501 program status, OSC 52 copies, the hardware
// cursor. Detection follows the established harness (pi 1.6.0): the
// environment the terminal sets (TERM_PROGRAM, KITTY_WINDOW_ID, COLORTERM,
// TMUX, …), then its PI_* overrides, then the terminal.* settings, which
// win. It also draws images with the kitty and iTerm2 protocols.
package termcaps
