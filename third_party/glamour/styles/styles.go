// Package styles provides default styles for the glamour package.
package styles

//go:generate go run ../internal/generate-style-json

import (
	"charm.land/glamour/v2/ansi"
)

const (
	defaultListIndent      = 2
	defaultListLevelIndent = 4
	defaultMargin          = 2

	defaultHeadingPrefixH2    = "## "
	defaultHeadingPrefixH3    = "### "
	defaultHeadingPrefixH4    = "#### "
	defaultHeadingPrefixH5    = "##### "
	defaultHeadingPrefixH6    = "###### "
	defaultTaskTickedPrefix   = "[✓] "
	defaultTaskUntickedPrefix = "[ ] "
	defaultImageFormat        = "Image: {{.text}} →"
	defaultHorizontalRule     = "\n--------\n"
	defaultArrowBlockPrefix   = "\n🠶 "
)

// Default styles.
const (
	AsciiStyle      = "ascii" //nolint: revive
	DarkStyle       = "dark"
	DraculaStyle    = "dracula"
	TokyoNightStyle = "tokyo-night"
	LightStyle      = "light"
	NoTTYStyle      = "notty"
	PinkStyle       = "pink"
)

var (
	// ASCIIStyleConfig uses only ASCII characters.
	ASCIIStyleConfig = ansi.StyleConfig{
		Document: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				BlockPrefix: "\n",
				BlockSuffix: "\n",
			},
			Margin: &piUint1,
		},
		BlockQuote: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{},
			Indent:         &piUint2,
			IndentToken:    &piString3,
		},
		Paragraph: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{},
		},
		List: ansi.StyleList{
			StyleBlock: ansi.StyleBlock{
				StylePrimitive: ansi.StylePrimitive{},
			},
			LevelIndent: defaultListLevelIndent,
		},
		Heading: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				BlockSuffix: "\n",
			},
		},
		H1: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: "# ",
			},
		},
		H2: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: defaultHeadingPrefixH2,
			},
		},
		H3: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: defaultHeadingPrefixH3,
			},
		},
		H4: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: defaultHeadingPrefixH4,
			},
		},
		H5: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: defaultHeadingPrefixH5,
			},
		},
		H6: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: defaultHeadingPrefixH6,
			},
		},
		Strikethrough: ansi.StylePrimitive{
			BlockPrefix: "~~",
			BlockSuffix: "~~",
		},
		Emph: ansi.StylePrimitive{
			BlockPrefix: "*",
			BlockSuffix: "*",
		},
		Strong: ansi.StylePrimitive{
			BlockPrefix: "**",
			BlockSuffix: "**",
		},
		HorizontalRule: ansi.StylePrimitive{
			Format: defaultHorizontalRule,
		},
		Item: ansi.StylePrimitive{
			BlockPrefix: "• ",
		},
		Enumeration: ansi.StylePrimitive{
			BlockPrefix: ". ",
		},
		Task: ansi.StyleTask{
			Ticked:   "[x] ",
			Unticked: defaultTaskUntickedPrefix,
		},
		ImageText: ansi.StylePrimitive{
			Format: defaultImageFormat,
		},
		Code: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				BlockPrefix: "`",
				BlockSuffix: "`",
			},
		},
		CodeBlock: ansi.StyleCodeBlock{
			StyleBlock: ansi.StyleBlock{
				Margin: &piUint4,
			},
		},
		Table: ansi.StyleTable{
			CenterSeparator: &piString5,
			ColumnSeparator: &piString6,
			RowSeparator:    &piString7,
		},
		DefinitionDescription: ansi.StylePrimitive{
			BlockPrefix: "\n* ",
		},
	}

	// DarkStyleConfig is the default dark style.
	DarkStyleConfig = ansi.StyleConfig{
		Document: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				BlockPrefix: "\n",
				BlockSuffix: "\n",
				Color:       &piString8,
			},
			Margin: &piUint9,
		},
		BlockQuote: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{},
			Indent:         &piUint10,
			IndentToken:    &piString11,
		},
		List: ansi.StyleList{
			LevelIndent: defaultListIndent,
		},
		Heading: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				BlockSuffix: "\n",
				Color:       &piString12,
				Bold:        &piBool13,
			},
		},
		H1: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix:          " ",
				Suffix:          " ",
				Color:           &piString14,
				BackgroundColor: &piString15,
				Bold:            &piBool16,
			},
		},
		H2: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: defaultHeadingPrefixH2,
			},
		},
		H3: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: defaultHeadingPrefixH3,
			},
		},
		H4: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: defaultHeadingPrefixH4,
			},
		},
		H5: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: defaultHeadingPrefixH5,
			},
		},
		H6: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: defaultHeadingPrefixH6,
				Color:  &piString17,
				Bold:   &piBool18,
			},
		},
		Strikethrough: ansi.StylePrimitive{
			CrossedOut: &piBool19,
		},
		Emph: ansi.StylePrimitive{
			Italic: &piBool20,
		},
		Strong: ansi.StylePrimitive{
			Bold: &piBool21,
		},
		HorizontalRule: ansi.StylePrimitive{
			Color:  &piString22,
			Format: defaultHorizontalRule,
		},
		Item: ansi.StylePrimitive{
			BlockPrefix: "• ",
		},
		Enumeration: ansi.StylePrimitive{
			BlockPrefix: ". ",
		},
		Task: ansi.StyleTask{
			StylePrimitive: ansi.StylePrimitive{},
			Ticked:         defaultTaskTickedPrefix,
			Unticked:       defaultTaskUntickedPrefix,
		},
		Link: ansi.StylePrimitive{
			Color:     &piString23,
			Underline: &piBool24,
		},
		LinkText: ansi.StylePrimitive{
			Color: &piString25,
			Bold:  &piBool26,
		},
		Image: ansi.StylePrimitive{
			Color:     &piString27,
			Underline: &piBool28,
		},
		ImageText: ansi.StylePrimitive{
			Color:  &piString29,
			Format: defaultImageFormat,
		},
		Code: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix:          "\u00a0", // Use non-breaking space to prevent hard breaks
				Suffix:          "\u00a0", // Use non-breaking space to prevent hard breaks
				Color:           &piString30,
				BackgroundColor: &piString31,
			},
		},
		CodeBlock: ansi.StyleCodeBlock{
			StyleBlock: ansi.StyleBlock{
				StylePrimitive: ansi.StylePrimitive{
					Color: &piString32,
				},
				Margin: &piUint33,
			},
			Chroma: &ansi.Chroma{
				Text: ansi.StylePrimitive{
					Color: &piString34,
				},
				Error: ansi.StylePrimitive{
					Color:           &piString35,
					BackgroundColor: &piString36,
				},
				Comment: ansi.StylePrimitive{
					Color: &piString37,
				},
				CommentPreproc: ansi.StylePrimitive{
					Color: &piString38,
				},
				Keyword: ansi.StylePrimitive{
					Color: &piString39,
				},
				KeywordReserved: ansi.StylePrimitive{
					Color: &piString40,
				},
				KeywordNamespace: ansi.StylePrimitive{
					Color: &piString41,
				},
				KeywordType: ansi.StylePrimitive{
					Color: &piString42,
				},
				Operator: ansi.StylePrimitive{
					Color: &piString43,
				},
				Punctuation: ansi.StylePrimitive{
					Color: &piString44,
				},
				Name: ansi.StylePrimitive{
					Color: &piString45,
				},
				NameBuiltin: ansi.StylePrimitive{
					Color: &piString46,
				},
				NameTag: ansi.StylePrimitive{
					Color: &piString47,
				},
				NameAttribute: ansi.StylePrimitive{
					Color: &piString48,
				},
				NameClass: ansi.StylePrimitive{
					Color:     &piString49,
					Underline: &piBool50,
					Bold:      &piBool51,
				},
				NameDecorator: ansi.StylePrimitive{
					Color: &piString52,
				},
				NameFunction: ansi.StylePrimitive{
					Color: &piString53,
				},
				LiteralNumber: ansi.StylePrimitive{
					Color: &piString54,
				},
				LiteralString: ansi.StylePrimitive{
					Color: &piString55,
				},
				LiteralStringEscape: ansi.StylePrimitive{
					Color: &piString56,
				},
				GenericDeleted: ansi.StylePrimitive{
					Color: &piString57,
				},
				GenericEmph: ansi.StylePrimitive{
					Italic: &piBool58,
				},
				GenericInserted: ansi.StylePrimitive{
					Color: &piString59,
				},
				GenericStrong: ansi.StylePrimitive{
					Bold: &piBool60,
				},
				GenericSubheading: ansi.StylePrimitive{
					Color: &piString61,
				},
				Background: ansi.StylePrimitive{
					BackgroundColor: &piString62,
				},
			},
		},
		Table: ansi.StyleTable{
			StyleBlock: ansi.StyleBlock{
				StylePrimitive: ansi.StylePrimitive{},
			},
		},
		DefinitionDescription: ansi.StylePrimitive{
			BlockPrefix: defaultArrowBlockPrefix,
		},
	}

	// LightStyleConfig is the default light style.
	LightStyleConfig = ansi.StyleConfig{
		Document: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				BlockPrefix: "\n",
				BlockSuffix: "\n",
				Color:       &piString63,
			},
			Margin: &piUint64,
		},
		BlockQuote: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{},
			Indent:         &piUint65,
			IndentToken:    &piString66,
		},
		List: ansi.StyleList{
			LevelIndent: defaultListIndent,
		},
		Heading: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				BlockSuffix: "\n",
				Color:       &piString67,
				Bold:        &piBool68,
			},
		},
		H1: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix:          " ",
				Suffix:          " ",
				Color:           &piString69,
				BackgroundColor: &piString70,
				Bold:            &piBool71,
			},
		},
		H2: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: defaultHeadingPrefixH2,
			},
		},
		H3: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: defaultHeadingPrefixH3,
			},
		},
		H4: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: defaultHeadingPrefixH4,
			},
		},
		H5: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: defaultHeadingPrefixH5,
			},
		},
		H6: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: defaultHeadingPrefixH6,
				Bold:   &piBool72,
			},
		},
		Strikethrough: ansi.StylePrimitive{
			CrossedOut: &piBool73,
		},
		Emph: ansi.StylePrimitive{
			Italic: &piBool74,
		},
		Strong: ansi.StylePrimitive{
			Bold: &piBool75,
		},
		HorizontalRule: ansi.StylePrimitive{
			Color:  &piString76,
			Format: defaultHorizontalRule,
		},
		Item: ansi.StylePrimitive{
			BlockPrefix: "• ",
		},
		Enumeration: ansi.StylePrimitive{
			BlockPrefix: ". ",
		},
		Task: ansi.StyleTask{
			StylePrimitive: ansi.StylePrimitive{},
			Ticked:         defaultTaskTickedPrefix,
			Unticked:       defaultTaskUntickedPrefix,
		},
		Link: ansi.StylePrimitive{
			Color:     &piString77,
			Underline: &piBool78,
		},
		LinkText: ansi.StylePrimitive{
			Color: &piString79,
			Bold:  &piBool80,
		},
		Image: ansi.StylePrimitive{
			Color:     &piString81,
			Underline: &piBool82,
		},
		ImageText: ansi.StylePrimitive{
			Color:  &piString83,
			Format: defaultImageFormat,
		},
		Code: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix:          "\u00a0", // Use non-breaking space to prevent hard breaks
				Suffix:          "\u00a0", // Use non-breaking space to prevent hard breaks
				Color:           &piString84,
				BackgroundColor: &piString85,
			},
		},
		CodeBlock: ansi.StyleCodeBlock{
			StyleBlock: ansi.StyleBlock{
				StylePrimitive: ansi.StylePrimitive{
					Color: &piString86,
				},
				Margin: &piUint87,
			},
			Chroma: &ansi.Chroma{
				Text: ansi.StylePrimitive{
					Color: &piString88,
				},
				Error: ansi.StylePrimitive{
					Color:           &piString89,
					BackgroundColor: &piString90,
				},
				Comment: ansi.StylePrimitive{
					Color: &piString91,
				},
				CommentPreproc: ansi.StylePrimitive{
					Color: &piString92,
				},
				Keyword: ansi.StylePrimitive{
					Color: &piString93,
				},
				KeywordReserved: ansi.StylePrimitive{
					Color: &piString94,
				},
				KeywordNamespace: ansi.StylePrimitive{
					Color: &piString95,
				},
				KeywordType: ansi.StylePrimitive{
					Color: &piString96,
				},
				Operator: ansi.StylePrimitive{
					Color: &piString97,
				},
				Punctuation: ansi.StylePrimitive{
					Color: &piString98,
				},
				NameBuiltin: ansi.StylePrimitive{
					Color: &piString99,
				},
				NameTag: ansi.StylePrimitive{
					Color: &piString100,
				},
				NameAttribute: ansi.StylePrimitive{
					Color: &piString101,
				},
				NameClass: ansi.StylePrimitive{
					Color:     &piString102,
					Underline: &piBool103,
					Bold:      &piBool104,
				},
				NameConstant: ansi.StylePrimitive{
					Color: &piString105,
				},
				NameDecorator: ansi.StylePrimitive{
					Color: &piString106,
				},
				NameFunction: ansi.StylePrimitive{
					Color: &piString107,
				},
				LiteralNumber: ansi.StylePrimitive{
					Color: &piString108,
				},
				LiteralString: ansi.StylePrimitive{
					Color: &piString109,
				},
				LiteralStringEscape: ansi.StylePrimitive{
					Color: &piString110,
				},
				GenericDeleted: ansi.StylePrimitive{
					Color: &piString111,
				},
				GenericEmph: ansi.StylePrimitive{
					Italic: &piBool112,
				},
				GenericInserted: ansi.StylePrimitive{
					Color: &piString113,
				},
				GenericStrong: ansi.StylePrimitive{
					Bold: &piBool114,
				},
				GenericSubheading: ansi.StylePrimitive{
					Color: &piString115,
				},
				Background: ansi.StylePrimitive{
					BackgroundColor: &piString116,
				},
			},
		},
		Table: ansi.StyleTable{
			StyleBlock: ansi.StyleBlock{
				StylePrimitive: ansi.StylePrimitive{},
			},
		},
		DefinitionDescription: ansi.StylePrimitive{
			BlockPrefix: defaultArrowBlockPrefix,
		},
	}

	// PinkStyleConfig is the default pink style.
	PinkStyleConfig = ansi.StyleConfig{
		Document: ansi.StyleBlock{
			Margin: &piUint117,
		},
		BlockQuote: ansi.StyleBlock{
			Indent:      &piUint118,
			IndentToken: &piString119,
		},
		List: ansi.StyleList{
			LevelIndent: defaultListIndent,
		},
		Heading: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				BlockSuffix: "\n",
				Color:       &piString120,
				Bold:        &piBool121,
			},
		},
		H1: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				BlockSuffix: "\n",
				BlockPrefix: "\n",
				Prefix:      "",
			},
		},
		H2: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: "▌ ",
			},
		},
		H3: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: "┃ ",
			},
		},
		H4: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: "│ ",
			},
		},
		H5: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: "┆ ",
			},
		},
		H6: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Prefix: "┊ ",
				Bold:   &piBool122,
			},
		},
		Text: ansi.StylePrimitive{},
		Strikethrough: ansi.StylePrimitive{
			CrossedOut: &piBool123,
		},
		Emph: ansi.StylePrimitive{
			Italic: &piBool124,
		},
		Strong: ansi.StylePrimitive{
			Bold: &piBool125,
		},
		HorizontalRule: ansi.StylePrimitive{
			Color:  &piString126,
			Format: "\n──────\n",
		},
		Item: ansi.StylePrimitive{
			BlockPrefix: "• ",
		},
		Enumeration: ansi.StylePrimitive{
			BlockPrefix: ". ",
		},
		Task: ansi.StyleTask{
			Ticked:   defaultTaskTickedPrefix,
			Unticked: defaultTaskUntickedPrefix,
		},
		Link: ansi.StylePrimitive{
			Color:     &piString127,
			Underline: &piBool128,
		},
		LinkText: ansi.StylePrimitive{
			Bold: &piBool129,
		},
		Image: ansi.StylePrimitive{
			Underline: &piBool130,
		},
		ImageText: ansi.StylePrimitive{
			Format: "Image: {{.text}}",
		},
		Code: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Color:           &piString131,
				BackgroundColor: &piString132,
				Prefix:          "\u00a0", // Use non-breaking space to prevent hard breaks
				Suffix:          "\u00a0", // Use non-breaking space to prevent hard breaks
			},
		},
		Table:          ansi.StyleTable{},
		DefinitionList: ansi.StyleBlock{},
		DefinitionTerm: ansi.StylePrimitive{},
		DefinitionDescription: ansi.StylePrimitive{
			BlockPrefix: defaultArrowBlockPrefix,
		},
		HTMLBlock: ansi.StyleBlock{},
		HTMLSpan:  ansi.StyleBlock{},
	}

	// NoTTYStyleConfig is the default notty style.
	NoTTYStyleConfig = ASCIIStyleConfig

	// DefaultStyles are the default styles.
	DefaultStyles = map[string]*ansi.StyleConfig{
		AsciiStyle: &ASCIIStyleConfig,
		DarkStyle:  &DarkStyleConfig,
		LightStyle: &LightStyleConfig,
		NoTTYStyle: &NoTTYStyleConfig,
		PinkStyle:  &PinkStyleConfig,

		// Popular themes
		DraculaStyle:    &DraculaStyleConfig,
		TokyoNightStyle: &TokyoNightStyleConfig,
	}
)

func boolPtr(b bool) *bool       { return &b }
func stringPtr(s string) *string { return &s }
func uintPtr(u uint) *uint       { return &u }
