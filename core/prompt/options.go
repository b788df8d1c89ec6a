package prompt

// ContextFile is a project instruction file (AGENTS.md and friends) and its
// contents, which are data: they are never interpolated.
type ContextFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// Skill is one entry of the skills catalogue shown to the model.
type Skill struct {
	Name                   string `json:"name"`
	Description            string `json:"description"`
	Location               string `json:"location"`
	DisableModelInvocation bool   `json:"disableModelInvocation,omitempty"`
}

// SectionSpec asks for an extra named section. A nil Order places it after
// the built-in sections (1000 + its position among the extra sections).
type SectionSpec struct {
	Name        string   `json:"name"`
	Text        string   `json:"text"`
	Order       *float64 `json:"order,omitempty"`
	Interpolate bool     `json:"interpolate,omitempty"`
	Complete    bool     `json:"complete,omitempty"`
	Source      string   `json:"source,omitempty"`
}

// Options is everything the section builder needs. The zero value builds the
// default prompt with the default tools and no working directory.
type Options struct {
	// CustomPrompt replaces the preamble and drops tools, rules and docs.
	CustomPrompt string
	// CustomPromptSource is the provenance recorded for a custom preamble
	// (for example "cli" or "settings:/path/SYSTEM.md"); empty means "cli".
	CustomPromptSource string
	// Tools is the selection in order; nil selects DefaultTools, an empty
	// non-nil slice selects none.
	Tools []string
	// Catalog declares the known tools: their snippets, guidelines and
	// schemas. A selected tool the catalog does not describe is neither
	// listed nor declared (pi passes its runnable tools here).
	Catalog []Tool
	// Guidelines are extra rule bullets, after the tools' own.
	Guidelines []string
	// AppendText becomes the addendum section.
	AppendText       string
	AppendTextSource string
	Cwd              string
	ContextFiles     []ContextFile
	Skills           []Skill
	// Sections are extra named sections in layer order: a later spec of the
	// same name replaces an earlier one and keeps its position.
	Sections  []SectionSpec
	Variables []Variable
	Contexts  []Context
	// SuppressContexts empties the runtime context snapshot.
	SuppressContexts bool
	// DocsLocation is where pi's own documentation can be read; empty uses
	// defaultDocsLocation.
	DocsLocation string
}

// SelectedTools resolves the tool selection, applying the default.
func (o *Options) SelectedTools() []string {
	if o.Tools == nil {
		return DefaultTools()
	}
	return o.Tools
}

func (o *Options) catalog() []Tool {
	return o.Catalog
}
