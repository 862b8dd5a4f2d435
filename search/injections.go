package search

import "context"
import "fmt"
import "os"
import "slices"
import "strings"

import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/matcher/rule"
import "github.com/tetherhq/tether/search/inject"

// A project's languageInjections (sgconfig.yml), read into
// inject.Injections: host languages and regions beyond the grammars' own.

// injectionKeys are the keys of a languageInjections entry.
var injectionKeys = []string{"hostLanguage", "injected", "rule", "constraints", "utils", "transform"}

// compileInjections compiles an sgconfig.yml's languageInjections (v, nil
// for none) read from source.
func compileInjections(ctx context.Context, p matcher.Parser, v any, source string) ([]inject.Injection, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s: languageInjections must be a list of {hostLanguage, rule, injected}", rule.ErrInvalid, source)
	}
	var out []inject.Injection
	for i, x := range list {
		at := fmt.Sprintf("%s: languageInjections[%d]", source, i)
		m, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: %s: want an object with hostLanguage, rule and injected", rule.ErrInvalid, at)
		}
		core := map[string]any{}
		for k, val := range m {
			if !slices.Contains(injectionKeys, k) {
				return nil, fmt.Errorf("%w: %s: %s: unknown key (%s)", rule.ErrInvalid, at, k, strings.Join(injectionKeys, ", "))
			}
			if k != "hostLanguage" && k != "injected" {
				core[k] = val
			}
		}
		hostName, _ := m["hostLanguage"].(string)
		if hostName == "" {
			return nil, fmt.Errorf("%w: %s: hostLanguage is missing: name the language of the files that hold the code (js, html, ...)", rule.ErrInvalid, at)
		}
		host, err := lookupLang(hostName)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: hostLanguage: %v", rule.ErrInvalid, at, err)
		}
		inj := inject.Injection{Host: host.ID}
		switch t := m["injected"].(type) {
		case string:
			l, err := lookupLang(t)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: injected: %v", rule.ErrInvalid, at, err)
			}
			inj.Injected, inj.Static = []string{l.ID}, l.ID
		case []any:
			for _, n := range t {
				name, _ := n.(string)
				l, err := lookupLang(name)
				if err != nil {
					return nil, fmt.Errorf("%w: %s: injected: %v", rule.ErrInvalid, at, err)
				}
				inj.Injected = append(inj.Injected, l.ID)
			}
		}
		if len(inj.Injected) == 0 {
			return nil, fmt.Errorf("%w: %s: injected is missing: give a language (css) or a list of them ([css, scss]) that $LANG names", rule.ErrInvalid, at)
		}
		if _, ok := core["rule"]; !ok {
			return nil, fmt.Errorf("%w: %s: rule is missing: a rule whose $CONTENT captures the embedded code", rule.ErrInvalid, at)
		}
		if inj.Rule, err = rule.Compile(ctx, p, host, core, rule.Options{Source: at}); err != nil {
			return nil, err
		}
		out = append(out, inj)
	}
	return out, nil
}

// LoadInjections reads only the languageInjections of the sgconfig.yml
// file config, for a search (as ast-grep run reads them); nil when it has
// none.
func LoadInjections(ctx context.Context, p matcher.Parser, config string) ([]inject.Injection, error) {
	data, err := os.ReadFile(config)
	if err != nil {
		return nil, fmt.Errorf("search: project config: %w", err)
	}
	return ParseInjections(ctx, p, data, config)
}

// ParseInjections compiles the languageInjections of an sgconfig.yml's
// text data, named source in errors; nil when it has none.
func ParseInjections(ctx context.Context, p matcher.Parser, data []byte, config string) ([]inject.Injection, error) {
	docs, err := ParseRuleDocs(data, config)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("%w: %s: want one document", rule.ErrInvalid, config)
	}
	return compileInjections(ctx, p, docs[0]["languageInjections"], config)
}
