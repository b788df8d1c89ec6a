package resources

import "encoding/json"

// MarshalJSON emits {"path": …}: context file contents stay out of listings.
func (c ContextFile) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Path string `json:"path"`
	}{c.Path})
}

// MarshalJSON emits {"name", "description", "path", "visible", "source"}.
func (s Skill) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Path        string `json:"path"`
		Visible     bool   `json:"visible"`
		Source      string `json:"source,omitempty"`
	}{s.Name, s.Description, s.FilePath, s.Visible(), s.Source})
}

// MarshalJSON emits {"name", "description", "argumentHint", "path",
// "source"}; the content stays out of listings.
func (t Template) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name         string `json:"name"`
		Description  string `json:"description"`
		ArgumentHint string `json:"argumentHint"`
		Path         string `json:"path"`
		Source       string `json:"source,omitempty"`
	}{t.Name, t.Description, t.ArgumentHint, t.FilePath, t.Source})
}
