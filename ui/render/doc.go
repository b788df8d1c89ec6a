// Package render draws the pieces of the interactive session as strings:
// markdown, diffs, tool calls and messages. Renderers are pure (the same
// input and width give the same output) and know nothing of Bubble Tea, so
// they are tested as golden strings and cached by the caller. Every text
// that came from a model, a file or a command passes through termtext
// first: it cannot move the cursor or rewrite the screen.
package render
