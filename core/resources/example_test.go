package resources_test

import (
	"fmt"

	"github.com/piwasm/pi/core/resources"
)

func ExampleParseArgs() {
	fmt.Printf("%q\n", resources.ParseArgs(`fix "the parser" it's 'a \'quoted\' word' ""`))
	// Output: ["fix" "the parser" "it's" "a 'quoted' word" ""]
}

func ExampleSubstitute() {
	args := []string{"main.go", "naming", "tests"}
	fmt.Println(resources.Substitute("Review $1, focusing on ${@:2}. Depth: ${4:-normal}.", args))
	// Output: Review main.go, focusing on naming tests. Depth: normal.
}

func ExampleExpandInput() {
	templates := []resources.Template{{Name: "fix", Content: "Fix the bug in $1: $ARGUMENTS"}}
	e := resources.ExpandInput(`/fix parser.go "off by one"`, templates, nil)
	fmt.Println(e.Kind, e.Name)
	fmt.Println(e.Text)
	// Output:
	// template fix
	// Fix the bug in parser.go: parser.go off by one
}

func ExampleAgentDir() {
	getenv := func(string) string { return "" }
	fmt.Println(resources.AgentDir(getenv, "/home/ada"))
	// Output: /home/ada/.pi/agent
}
