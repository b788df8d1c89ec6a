// Package changelog reads a Keep-a-Changelog style CHANGELOG.md ("## [1.2.0]
// - date" headings, newest first) and answers what is new since a version.
// pi's own changelog is embedded in the binary; the version a person last
// saw is kept in a file of pi's own, not in the shared settings.json (the
// established harness keeps its own version there, and the two must not
// overwrite each other's).
package changelog
