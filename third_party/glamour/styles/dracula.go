package styles

import "charm.land/glamour/v2/ansi"

// DraculaStyleConfig is the dracula style.
var DraculaStyleConfig = ansi.StyleConfig{
	Document: ansi.StyleBlock{
		StylePrimitive: ansi.StylePrimitive{
			BlockPrefix: "\n",
			BlockSuffix: "\n",
			Color:       &piString133,
		},
		Margin: &piUint134,
	},
	BlockQuote: ansi.StyleBlock{
		StylePrimitive: ansi.StylePrimitive{
			Color:  &piString135,
			Italic: &piBool136,
		},
		Indent: &piUint137,
	},
	List: ansi.StyleList{
		LevelIndent: defaultMargin,
		StyleBlock: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Color: &piString138,
			},
		},
	},
	Heading: ansi.StyleBlock{
		StylePrimitive: ansi.StylePrimitive{
			BlockSuffix: "\n",
			Color:       &piString139,
			Bold:        &piBool140,
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
		CrossedOut: &piBool141,
	},
	Emph: ansi.StylePrimitive{
		Color:  &piString142,
		Italic: &piBool143,
	},
	Strong: ansi.StylePrimitive{
		Bold:  &piBool144,
		Color: &piString145,
	},
	HorizontalRule: ansi.StylePrimitive{
		Color:  &piString146,
		Format: defaultHorizontalRule,
	},
	Item: ansi.StylePrimitive{
		BlockPrefix: "• ",
	},
	Enumeration: ansi.StylePrimitive{
		BlockPrefix: ". ",
		Color:       &piString147,
	},
	Task: ansi.StyleTask{
		StylePrimitive: ansi.StylePrimitive{},
		Ticked:         defaultTaskTickedPrefix,
		Unticked:       defaultTaskUntickedPrefix,
	},
	Link: ansi.StylePrimitive{
		Color:     &piString148,
		Underline: &piBool149,
	},
	LinkText: ansi.StylePrimitive{
		Color: &piString150,
	},
	Image: ansi.StylePrimitive{
		Color:     &piString151,
		Underline: &piBool152,
	},
	ImageText: ansi.StylePrimitive{
		Color:  &piString153,
		Format: defaultImageFormat,
	},
	Code: ansi.StyleBlock{
		StylePrimitive: ansi.StylePrimitive{
			Color: &piString154,
		},
	},
	CodeBlock: ansi.StyleCodeBlock{
		StyleBlock: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				Color: &piString155,
			},
			Margin: &piUint156,
		},
		Chroma: &ansi.Chroma{
			Text: ansi.StylePrimitive{
				Color: &piString157,
			},
			Error: ansi.StylePrimitive{
				Color:           &piString158,
				BackgroundColor: &piString159,
			},
			Comment: ansi.StylePrimitive{
				Color: &piString160,
			},
			CommentPreproc: ansi.StylePrimitive{
				Color: &piString161,
			},
			Keyword: ansi.StylePrimitive{
				Color: &piString162,
			},
			KeywordReserved: ansi.StylePrimitive{
				Color: &piString163,
			},
			KeywordNamespace: ansi.StylePrimitive{
				Color: &piString164,
			},
			KeywordType: ansi.StylePrimitive{
				Color: &piString165,
			},
			Operator: ansi.StylePrimitive{
				Color: &piString166,
			},
			Punctuation: ansi.StylePrimitive{
				Color: &piString167,
			},
			Name: ansi.StylePrimitive{
				Color: &piString168,
			},
			NameBuiltin: ansi.StylePrimitive{
				Color: &piString169,
			},
			NameTag: ansi.StylePrimitive{
				Color: &piString170,
			},
			NameAttribute: ansi.StylePrimitive{
				Color: &piString171,
			},
			NameClass: ansi.StylePrimitive{
				Color: &piString172,
			},
			NameConstant: ansi.StylePrimitive{
				Color: &piString173,
			},
			NameDecorator: ansi.StylePrimitive{
				Color: &piString174,
			},
			NameFunction: ansi.StylePrimitive{
				Color: &piString175,
			},
			LiteralNumber: ansi.StylePrimitive{
				Color: &piString176,
			},
			LiteralString: ansi.StylePrimitive{
				Color: &piString177,
			},
			LiteralStringEscape: ansi.StylePrimitive{
				Color: &piString178,
			},
			GenericDeleted: ansi.StylePrimitive{
				Color: &piString179,
			},
			GenericEmph: ansi.StylePrimitive{
				Color:  &piString180,
				Italic: &piBool181,
			},
			GenericInserted: ansi.StylePrimitive{
				Color: &piString182,
			},
			GenericStrong: ansi.StylePrimitive{
				Color: &piString183,
				Bold:  &piBool184,
			},
			GenericSubheading: ansi.StylePrimitive{
				Color: &piString185,
			},
			Background: ansi.StylePrimitive{
				BackgroundColor: &piString186,
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
