package styles

import "charm.land/glamour/v2/ansi"

// TokyoNightStyleConfig is the tokyo night style.
var TokyoNightStyleConfig = ansi.StyleConfig{
	Document: ansi.StyleBlock{
		StylePrimitive: ansi.StylePrimitive{
			BlockPrefix: "\n",
			BlockSuffix: "\n",
			Color:       &piString187,
		},
		Margin: &piUint188,
	},
	BlockQuote: ansi.StyleBlock{
		StylePrimitive: ansi.StylePrimitive{},
		Indent:         &piUint189,
		IndentToken:    &piString190,
	},
	List: ansi.StyleList{
		StyleBlock: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Color: &piString191,
			},
		},
		LevelIndent: defaultListIndent,
	},
	Heading: ansi.StyleBlock{
		StylePrimitive: ansi.StylePrimitive{
			BlockSuffix: "\n",
			Color:       &piString192,
			Bold:        &piBool193,
		},
	},
	H1: ansi.StyleBlock{
		StylePrimitive: ansi.StylePrimitive{
			Prefix: "# ",
			Bold:   &piBool194,
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
		CrossedOut: &piBool195,
	},
	Emph: ansi.StylePrimitive{
		Italic: &piBool196,
	},
	Strong: ansi.StylePrimitive{
		Bold: &piBool197,
	},
	HorizontalRule: ansi.StylePrimitive{
		Color:  &piString198,
		Format: defaultHorizontalRule,
	},
	Item: ansi.StylePrimitive{
		BlockPrefix: "• ",
	},
	Enumeration: ansi.StylePrimitive{
		BlockPrefix: ". ",
		Color:       &piString199,
	},
	Task: ansi.StyleTask{
		StylePrimitive: ansi.StylePrimitive{},
		Ticked:         defaultTaskTickedPrefix,
		Unticked:       defaultTaskUntickedPrefix,
	},
	Link: ansi.StylePrimitive{
		Color:     &piString200,
		Underline: &piBool201,
	},
	LinkText: ansi.StylePrimitive{
		Color: &piString202,
	},
	Image: ansi.StylePrimitive{
		Color:     &piString203,
		Underline: &piBool204,
	},
	ImageText: ansi.StylePrimitive{
		Color:  &piString205,
		Format: defaultImageFormat,
	},
	Code: ansi.StyleBlock{
		StylePrimitive: ansi.StylePrimitive{
			Color: &piString206,
		},
	},
	CodeBlock: ansi.StyleCodeBlock{
		StyleBlock: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Color: &piString207,
			},
			Margin: &piUint208,
		},
		Chroma: &ansi.Chroma{
			Text: ansi.StylePrimitive{
				Color: &piString209,
			},
			Error: ansi.StylePrimitive{
				Color:           &piString210,
				BackgroundColor: &piString211,
			},
			Comment: ansi.StylePrimitive{
				Color: &piString212,
			},
			CommentPreproc: ansi.StylePrimitive{
				Color: &piString213,
			},
			Keyword: ansi.StylePrimitive{
				Color: &piString214,
			},
			KeywordReserved: ansi.StylePrimitive{
				Color: &piString215,
			},
			KeywordNamespace: ansi.StylePrimitive{
				Color: &piString216,
			},
			KeywordType: ansi.StylePrimitive{
				Color: &piString217,
			},
			Operator: ansi.StylePrimitive{
				Color: &piString218,
			},
			Punctuation: ansi.StylePrimitive{
				Color: &piString219,
			},
			Name: ansi.StylePrimitive{
				Color: &piString220,
			},
			NameConstant: ansi.StylePrimitive{
				Color: &piString221,
			},
			NameBuiltin: ansi.StylePrimitive{
				Color: &piString222,
			},
			NameTag: ansi.StylePrimitive{
				Color: &piString223,
			},
			NameAttribute: ansi.StylePrimitive{
				Color: &piString224,
			},
			NameClass: ansi.StylePrimitive{
				Color: &piString225,
			},
			NameDecorator: ansi.StylePrimitive{
				Color: &piString226,
			},
			NameFunction: ansi.StylePrimitive{
				Color: &piString227,
			},
			LiteralNumber: ansi.StylePrimitive{},
			LiteralString: ansi.StylePrimitive{
				Color: &piString228,
			},
			LiteralStringEscape: ansi.StylePrimitive{
				Color: &piString229,
			},
			GenericDeleted: ansi.StylePrimitive{
				Color: &piString230,
			},
			GenericEmph: ansi.StylePrimitive{
				Italic: &piBool231,
			},
			GenericInserted: ansi.StylePrimitive{
				Color: &piString232,
			},
			GenericStrong: ansi.StylePrimitive{
				Bold: &piBool233,
			},
			GenericSubheading: ansi.StylePrimitive{
				Color: &piString234,
			},
			Background: ansi.StylePrimitive{
				BackgroundColor: &piString235,
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
