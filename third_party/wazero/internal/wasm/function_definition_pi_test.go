package wasm

import (
	"reflect"
	"testing"
)

// PI-PATCH: a definition built alone (FunctionDefinition on a module that
// is not a host module) equals the one upstream's bulk build makes, for
// imported and defined functions, named or not, exported or not.
func TestFunctionDefinitionAloneAsInBulk(t *testing.T) {
	i32 := ValueTypeI32
	newModule := func() *Module {
		return &Module{
			TypeSection: []FunctionType{{}, {Params: []ValueType{i32, i32}, Results: []ValueType{i32}}},
			ImportSection: []Import{
				{Type: ExternTypeFunc, Module: "env", Name: "f0", DescFunc: 1},
				{Type: ExternTypeMemory, Module: "env", Name: "mem", DescMem: &Memory{Min: 1}},
				{Type: ExternTypeFunc, Module: "env", Name: "f1", DescFunc: 0},
			},
			ImportFunctionCount: 2,
			FunctionSection:     []Index{0, 1, 1, 0},
			CodeSection:         []Code{{}, {}, {}, {}},
			ExportSection: []Export{
				{Type: ExternTypeFunc, Name: "run", Index: 3},
				{Type: ExternTypeFunc, Name: "run_too", Index: 3},
				{Type: ExternTypeMemory, Name: "memory", Index: 3},
				{Type: ExternTypeFunc, Name: "imp", Index: 0},
			},
			NameSection: &NameSection{
				ModuleName:    "m",
				FunctionNames: NameMap{{Index: 0, Name: "f0"}, {Index: 3, Name: "three"}, {Index: 5, Name: "five"}},
				LocalNames:    IndirectNameMap{{Index: 3, NameMap: NameMap{{Index: 0, Name: "a"}, {Index: 1, Name: "b"}}}},
				ResultNames:   IndirectNameMap{{Index: 3, NameMap: NameMap{{Index: 0, Name: "r"}}}},
			},
		}
	}
	for _, named := range []bool{true, false} {
		bulk, alone := newModule(), newModule()
		if !named {
			bulk.NameSection, alone.NameSection = nil, nil
		}
		bulk.buildFunctionDefinitions()
		for i := Index(0); i < 6; i++ {
			want := &bulk.FunctionDefinitionSection[i]
			got := alone.FunctionDefinition(i)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("named %v, function %d: alone %+v, in bulk %+v", named, i, got, want)
			}
			if again := alone.FunctionDefinition(i); again != got {
				t.Errorf("function %d: a second call gave another definition", i)
			}
		}
		if alone.FunctionDefinitionSection != nil {
			t.Error("building one definition built them all")
		}
	}
}
