// Package yamlerr turns gopkg.in/yaml.v3 syntax errors into a 1-based file
// line and a message. yaml.v3 reports its parser's errors with a 0-based
// line (and none on the first line) but its scanner's with a 1-based one;
// every pi file that is YAML (manifests, frontmatter) reports lines the
// same way through here.
package yamlerr
