// Command crd-upgrade-oracle runs operator-controller's CRD upgrade safety preflight on pairs of
// CustomResourceDefinitions and prints its verdicts, for the tests of src/crd-safety to compare
// against. It is built inside a copy of the operator-controller module (the preflight package is
// internal) by scripts/build-crd-oracle.sh.
//
// Input, on stdin: one JSON object a line, {"old": <CRD>, "new": <CRD>} (either may be YAML text
// in a string), or {"old": [<CRD>...], "new": [<CRD>...]}: the CRDs of two bundles, the old ones on
// the cluster and the new ones the release the preflight is given (a CRD only one side has is how
// CRDs appear or disappear between bundles). Output, one JSON object a line: {"errors": [...]} with
// the preflight's error lines ([] when the upgrade is allowed), or {"fail": "..."} when a CRD
// cannot be read.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/operator-framework/operator-controller/internal/operator-controller/rukpak/preflights/crdupgradesafety"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

type pair struct {
	Old json.RawMessage `json:"old"`
	New json.RawMessage `json:"new"`
}

type verdict struct {
	Errors []string `json:"errors"`
	Fail   string   `json:"fail,omitempty"`
}

// decode reads a CRD given as a JSON object or as a string of YAML, the way the cluster's API
// server would hold it (JSON keys in sorted order, as sigs.k8s.io/yaml writes them).
func decode(raw json.RawMessage) (*apiextensionsv1.CustomResourceDefinition, error) {
	text := []byte(raw)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		text = []byte(s)
	}
	j, err := yaml.YAMLToJSON(text)
	if err != nil {
		return nil, err
	}
	// Round-trip through a generic value so that raw JSON (defaults, enums) has sorted keys
	// whatever the input's order.
	var generic interface{}
	if err := json.Unmarshal(j, &generic); err != nil {
		return nil, err
	}
	if j, err = json.Marshal(generic); err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(j, crd); err != nil {
		return nil, err
	}
	crd.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	return crd, nil
}

// decodeAll reads one side of a pair: a single CRD, or a JSON array of them (null: none).
func decodeAll(raw json.RawMessage) ([]*apiextensionsv1.CustomResourceDefinition, bool, error) {
	var list []json.RawMessage
	if string(raw) == "null" || len(raw) == 0 {
		return nil, true, nil
	}
	if json.Unmarshal(raw, &list) != nil {
		crd, err := decode(raw)
		if err != nil {
			return nil, false, err
		}
		return []*apiextensionsv1.CustomResourceDefinition{crd}, false, nil
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(list))
	for _, r := range list {
		crd, err := decode(r)
		if err != nil {
			return nil, true, err
		}
		out = append(out, crd)
	}
	return out, true, nil
}

func check(p pair) (v verdict) {
	defer func() {
		if r := recover(); r != nil {
			v = verdict{Errors: []string{}, Fail: fmt.Sprintf("panic: %v", r)}
		}
	}()
	oldCrds, oldSet, err := decodeAll(p.Old)
	if err != nil {
		return verdict{Errors: []string{}, Fail: "old: " + err.Error()}
	}
	newCrds, newSet, err := decodeAll(p.New)
	if err != nil {
		return verdict{Errors: []string{}, Fail: "new: " + err.Error()}
	}
	existing := make([]runtime.Object, 0, len(oldCrds))
	for _, oldCrd := range oldCrds {
		// On a cluster the existing CRD's status lists the versions objects were stored in; a
		// CRD read from a bundle has no status, so its storage version stands for them.
		if len(oldCrd.Status.StoredVersions) == 0 {
			for _, ver := range oldCrd.Spec.Versions {
				if ver.Storage {
					oldCrd.Status.StoredVersions = append(oldCrd.Status.StoredVersions, ver.Name)
				}
			}
		}
		existing = append(existing, oldCrd)
	}
	release := make([]client.Object, 0, len(newCrds))
	for _, newCrd := range newCrds {
		// A single pair compares the two CRDs whatever their names; sets match by name.
		if !oldSet && !newSet && len(oldCrds) == 1 {
			newCrd.Name = oldCrds[0].Name
		}
		release = append(release, newCrd)
	}
	// The fake clientset is client-go's in-memory object tracker: the preflight reads the
	// existing CRDs from it as it would from the API server.
	cs := fake.NewSimpleClientset(existing...)
	pf := crdupgradesafety.NewPreflight(cs.ApiextensionsV1().CustomResourceDefinitions())
	err = pf.Upgrade(context.Background(), release)
	if err == nil {
		return verdict{Errors: []string{}}
	}
	return verdict{Errors: strings.Split(err.Error(), "\n")}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<30)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "" {
			continue
		}
		var p pair
		var v verdict
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			v = verdict{Errors: []string{}, Fail: "input: " + err.Error()}
		} else {
			v = check(p)
		}
		b, _ := json.Marshal(v)
		out.Write(b)
		out.WriteByte('\n')
		out.Flush()
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
