// Package sessioncmd is `pi session`: listing a directory's sessions and
// showing one transcript with the requests it replays to. cmd/pi parses
// the flags and finds the files; what is read and printed lives here, the
// way cmd/go keeps each command's logic in a package of its own.
package sessioncmd
