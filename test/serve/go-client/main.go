// Command opm-serve-client talks to an `opm serve` catalog server the way OLM does, through
// operator-registry's own client package and generated stubs, and prints what it got as JSON on
// stdout. The serve tests and the serve bench run it against the reference opm and against
// opm-ts, so that both are read by the client the cluster uses.
//
//	opm-serve-client olm   -addr HOST:PORT              the OLM client's calls, one JSON document
//	opm-serve-client calls -addr HOST:PORT < calls.jsonl one answer line per request line
//	opm-serve-client load  -addr HOST:PORT -package P -c 16 -n 20000
//	                                                     GetPackage from c goroutines, a rate
//	opm-serve-client listbundles -addr HOST:PORT -n 10   ListBundles n times, each one timed
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/operator-framework/operator-registry/pkg/api"
	"github.com/operator-framework/operator-registry/pkg/client"
)

func main() {
	if len(os.Args) < 2 {
		fail(errors.New("usage: opm-serve-client olm|calls|load -addr HOST:PORT [flags]"))
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:50051", "server address")
	pkg := fs.String("package", "", "load: the package GetPackage asks for")
	workers := fs.Int("c", 16, "load: concurrent callers")
	count := fs.Int("n", 20000, "load, listbundles: calls in all")
	timeout := fs.Duration("timeout", 10*time.Minute, "deadline of the whole run")
	if err := fs.Parse(os.Args[2:]); err != nil {
		fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	var err error
	switch os.Args[1] {
	case "olm":
		err = olm(ctx, *addr)
	case "calls":
		err = calls(ctx, *addr, os.Stdin)
	case "load":
		err = load(ctx, *addr, *pkg, *workers, *count)
	case "listbundles":
		err = listBundles(ctx, *addr, *count)
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "opm-serve-client:", err)
	os.Exit(1)
}

// Messages are printed as protojson (the field names grpcurl shows), compacted: protojson's own
// spacing is deliberately unstable.
func asJSON(m proto.Message) json.RawMessage {
	b, err := protojson.Marshal(m)
	if err != nil {
		fail(err)
	}
	var out json.RawMessage
	if err := json.Unmarshal(b, &out); err != nil {
		fail(err)
	}
	return out
}

type rpcError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func errorOf(err error) *rpcError {
	s, _ := status.FromError(err)
	return &rpcError{Code: s.Code().String(), Message: s.Message()}
}

// answer is one call's outcome: a message, or an error with its gRPC code.
type answer struct {
	Response json.RawMessage `json:"response,omitempty"`
	Error    *rpcError       `json:"error,omitempty"`
}

func answerOf(m proto.Message, err error) answer {
	if err != nil {
		return answer{Error: errorOf(err)}
	}
	return answer{Response: asJSON(m)}
}

func dial(addr string) (*grpc.ClientConn, error) {
	return grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30)))
}

// olm makes the calls of operator-registry's client package, which OLM's catalog operator uses:
// the health check, GetPackage for each package, ListBundles until EOF, GetBundle for every bundle,
// each channel's head, the bundle replacing each name a channel mentions, and the default provider
// of each provided API. Maps print with sorted keys; ListBundles keeps the server's order.
func olm(ctx context.Context, addr string) error {
	c, err := client.NewClient(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	out := struct {
		Healthy       bool                       `json:"healthy"`
		Packages      map[string]answer          `json:"packages"`
		ListBundles   []json.RawMessage          `json:"listBundles"`
		Bundles       map[string]answer          `json:"bundles"`
		ChannelHeads  map[string]answer          `json:"channelHeads"`
		Replacements  map[string]json.RawMessage `json:"replacements"`
		Providers     map[string]answer          `json:"providers"`
		NotFound      map[string]answer          `json:"notFound"`
		BundleCount   int                        `json:"bundleCount"`
		PackageCount  int                        `json:"packageCount"`
		ProviderCount int                        `json:"providerCount"`
	}{
		Packages: map[string]answer{}, Bundles: map[string]answer{}, ChannelHeads: map[string]answer{},
		Replacements: map[string]json.RawMessage{}, Providers: map[string]answer{}, NotFound: map[string]answer{},
	}
	if out.Healthy, err = c.HealthCheck(ctx, 5*time.Second); err != nil {
		return fmt.Errorf("health check: %w", err)
	}
	// The client package has no ListPackages; OLM's packageserver calls the stub directly.
	names, err := c.Registry.ListPackages(ctx, &api.ListPackageRequest{})
	if err != nil {
		return err
	}
	var packages []string
	for {
		n, err := names.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("ListPackages: %w", err)
		}
		packages = append(packages, n.GetName())
	}
	sort.Strings(packages)
	out.PackageCount = len(packages)
	for _, p := range packages {
		pkg, err := c.GetPackage(ctx, p)
		out.Packages[p] = answerOf(pkg, err)
		if err != nil {
			continue
		}
		for _, ch := range pkg.GetChannels() {
			head, err := c.GetBundleInPackageChannel(ctx, p, ch.GetName())
			out.ChannelHeads[p+"/"+ch.GetName()] = answerOf(head, err)
		}
	}
	it, err := c.ListBundles(ctx)
	if err != nil {
		return fmt.Errorf("ListBundles: %w", err)
	}
	type key struct{ pkg, channel string }
	// For each channel: the names its bundles replace or skip, and who does.
	replacedBy := map[key]map[string][]string{}
	members := map[key][]string{}
	gvks := map[string]*api.GroupVersionKind{}
	for b := it.Next(); b != nil; b = it.Next() {
		out.ListBundles = append(out.ListBundles, asJSON(b))
		k := key{b.GetPackageName(), b.GetChannelName()}
		members[k] = append(members[k], b.GetCsvName())
		if replacedBy[k] == nil {
			replacedBy[k] = map[string][]string{}
		}
		for _, old := range append([]string{b.GetReplaces()}, b.GetSkips()...) {
			if old != "" && !contains(replacedBy[k][old], b.GetCsvName()) {
				replacedBy[k][old] = append(replacedBy[k][old], b.GetCsvName())
			}
		}
		for _, g := range b.GetProvidedApis() {
			gvks[g.GetGroup()+"/"+g.GetVersion()+"/"+g.GetKind()] = g
		}
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("ListBundles: %w", err)
	}
	out.BundleCount = len(out.ListBundles)
	for k, names := range members {
		for _, n := range names {
			b, err := c.GetBundle(ctx, k.pkg, k.channel, n)
			out.Bundles[k.pkg+"/"+k.channel+"/"+n] = answerOf(b, err)
		}
		// Every bundle name and every replaced or skipped name of the channel.
		asked := map[string]bool{}
		for _, n := range names {
			asked[n] = true
		}
		for old := range replacedBy[k] {
			asked[old] = true
		}
		for n := range asked {
			b, err := c.GetReplacementBundleInPackageChannel(ctx, n, k.pkg, k.channel)
			candidates := append([]string(nil), replacedBy[k][n]...)
			sort.Strings(candidates)
			out.Replacements[k.pkg+"/"+k.channel+"/"+n] = replacement(b, err, candidates)
		}
	}
	out.ProviderCount = len(gvks)
	for name, g := range gvks {
		b, err := c.GetBundleThatProvides(ctx, g.GetGroup(), g.GetVersion(), g.GetKind())
		out.Providers[name] = answerOf(b, err)
	}
	const none = "opm-serve-client-no-such"
	first := ""
	if len(packages) > 0 {
		first = packages[0]
	}
	p, err := c.GetPackage(ctx, none)
	out.NotFound["GetPackage"] = answerOf(p, err)
	b, err := c.GetBundle(ctx, none, none, none)
	out.NotFound["GetBundle"] = answerOf(b, err)
	b, err = c.GetBundle(ctx, first, none, none)
	out.NotFound["GetBundle/channel"] = answerOf(b, err)
	b, err = c.GetBundleInPackageChannel(ctx, none, none)
	out.NotFound["GetBundleInPackageChannel"] = answerOf(b, err)
	b, err = c.GetBundleInPackageChannel(ctx, first, none)
	out.NotFound["GetBundleInPackageChannel/channel"] = answerOf(b, err)
	b, err = c.GetReplacementBundleInPackageChannel(ctx, none, none, none)
	out.NotFound["GetReplacementBundleInPackageChannel"] = answerOf(b, err)
	b, err = c.GetBundleThatProvides(ctx, none, "v1", "Nothing")
	out.NotFound["GetBundleThatProvides"] = answerOf(b, err)
	return printJSON(out)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// replacement records GetBundleThatReplaces deterministically: when more than one bundle of the
// channel replaces or skips the name, the server may answer any of them, so the record holds the
// candidates and whether the answer is one of them instead of the answer itself.
func replacement(b *api.Bundle, err error, candidates []string) json.RawMessage {
	var v any
	switch {
	case err != nil:
		v = answer{Error: errorOf(err)}
	case len(candidates) > 1:
		v = map[string]any{"candidates": candidates, "answerIsCandidate": contains(candidates, b.GetCsvName())}
	default:
		v = answer{Response: asJSON(b)}
	}
	raw, mErr := json.Marshal(v)
	if mErr != nil {
		fail(mErr)
	}
	return raw
}

func printJSON(v any) error {
	w := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return w.Flush()
}

// call is one line of the calls mode's input: a method of api.Registry or
// api.ExperimentalRegistry, its request as protojson, and optional request metadata.
type call struct {
	Method   string            `json:"method"`
	Request  json.RawMessage   `json:"request"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

type callResult struct {
	Method   string             `json:"method"`
	Request  json.RawMessage    `json:"request"`
	Response json.RawMessage    `json:"response,omitempty"`
	Stream   *[]json.RawMessage `json:"stream,omitempty"` // [] for an empty stream
	Error    *rpcError          `json:"error,omitempty"`
}

type receiver[T proto.Message] interface {
	Recv() (T, error)
}

// drain reads a server stream to its end; messages received before an error are kept.
func drain[T proto.Message](s receiver[T], err error) ([]json.RawMessage, error) {
	if err != nil {
		return nil, err
	}
	out := []json.RawMessage{}
	for {
		m, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, asJSON(m))
	}
}

func decode(raw json.RawMessage, m proto.Message) error {
	if len(raw) == 0 {
		return nil
	}
	return protojson.Unmarshal(raw, m)
}

// calls answers each input line with one output line, in order, through the generated stubs.
func calls(ctx context.Context, addr string, in io.Reader) error {
	conn, err := dial(addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	reg := api.NewRegistryClient(conn)
	exp := api.NewExperimentalRegistryClient(conn)
	scan := bufio.NewScanner(in)
	scan.Buffer(make([]byte, 1<<20), 1<<26)
	w := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for scan.Scan() {
		if len(scan.Bytes()) == 0 {
			continue
		}
		var c call
		if err := json.Unmarshal(scan.Bytes(), &c); err != nil {
			return fmt.Errorf("bad call line: %w", err)
		}
		cctx := ctx
		if len(c.Metadata) > 0 {
			cctx = metadata.NewOutgoingContext(ctx, metadata.New(c.Metadata))
		}
		r := callResult{Method: c.Method, Request: c.Request}
		var msg proto.Message
		var stream []json.RawMessage
		var callErr error
		switch c.Method {
		case "ListPackages":
			q := &api.ListPackageRequest{}
			if callErr = decode(c.Request, q); callErr == nil {
				stream, callErr = drain(reg.ListPackages(cctx, q))
			}
		case "GetPackage":
			q := &api.GetPackageRequest{}
			if callErr = decode(c.Request, q); callErr == nil {
				msg, callErr = reg.GetPackage(cctx, q)
			}
		case "GetBundle":
			q := &api.GetBundleRequest{}
			if callErr = decode(c.Request, q); callErr == nil {
				msg, callErr = reg.GetBundle(cctx, q)
			}
		case "GetBundleForChannel":
			q := &api.GetBundleInChannelRequest{}
			if callErr = decode(c.Request, q); callErr == nil {
				//nolint:staticcheck // deprecated in the proto, still served and used by OLM
				msg, callErr = reg.GetBundleForChannel(cctx, q)
			}
		case "GetChannelEntriesThatReplace":
			q := &api.GetAllReplacementsRequest{}
			if callErr = decode(c.Request, q); callErr == nil {
				stream, callErr = drain(reg.GetChannelEntriesThatReplace(cctx, q))
			}
		case "GetBundleThatReplaces":
			q := &api.GetReplacementRequest{}
			if callErr = decode(c.Request, q); callErr == nil {
				msg, callErr = reg.GetBundleThatReplaces(cctx, q)
			}
		case "GetChannelEntriesThatProvide":
			q := &api.GetAllProvidersRequest{}
			if callErr = decode(c.Request, q); callErr == nil {
				stream, callErr = drain(reg.GetChannelEntriesThatProvide(cctx, q))
			}
		case "GetLatestChannelEntriesThatProvide":
			q := &api.GetLatestProvidersRequest{}
			if callErr = decode(c.Request, q); callErr == nil {
				stream, callErr = drain(reg.GetLatestChannelEntriesThatProvide(cctx, q))
			}
		case "GetDefaultBundleThatProvides":
			q := &api.GetDefaultProviderRequest{}
			if callErr = decode(c.Request, q); callErr == nil {
				msg, callErr = reg.GetDefaultBundleThatProvides(cctx, q)
			}
		case "ListBundles":
			q := &api.ListBundlesRequest{}
			if callErr = decode(c.Request, q); callErr == nil {
				stream, callErr = drain(reg.ListBundles(cctx, q))
			}
		case "ExperimentalListPackageCustomSchemas":
			q := &api.ExperimentalListPackageCustomSchemasRequest{}
			if callErr = decode(c.Request, q); callErr == nil {
				stream, callErr = drain(exp.ExperimentalListPackageCustomSchemas(cctx, q))
			}
		default:
			return fmt.Errorf("unknown method %q", c.Method)
		}
		if callErr != nil {
			r.Error = errorOf(callErr)
		} else if msg != nil {
			r.Response = asJSON(msg)
		}
		if stream != nil {
			r.Stream = &stream
		}
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	if err := scan.Err(); err != nil {
		return err
	}
	return w.Flush()
}

// load sends n GetPackage calls over one connection from c goroutines (as ghz does by default) and
// prints the count, the errors and the calls per second.
func load(ctx context.Context, addr, pkg string, workers, n int) error {
	if pkg == "" {
		return errors.New("load needs -package")
	}
	conn, err := dial(addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	reg := api.NewRegistryClient(conn)
	// One call first, so that the connection is up before the clock starts.
	if _, err := reg.GetPackage(ctx, &api.GetPackageRequest{Name: pkg}); err != nil {
		return fmt.Errorf("GetPackage %q: %w", pkg, err)
	}
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				if _, err := reg.GetPackage(ctx, &api.GetPackageRequest{Name: pkg}); err != nil {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	seconds := time.Since(start).Seconds()
	return printJSON(map[string]any{
		"calls": n, "errors": failed.Load(), "concurrency": workers, "seconds": seconds,
		"perSecond": float64(n) / seconds,
	})
}

// listBundles reads the whole ListBundles stream n times in a row over one connection and prints
// each read's milliseconds, the messages and their encoded bytes (of the last read).
func listBundles(ctx context.Context, addr string, n int) error {
	conn, err := dial(addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	reg := api.NewRegistryClient(conn)
	var ms []float64
	messages, size := 0, 0
	for range n {
		start := time.Now()
		stream, err := reg.ListBundles(ctx, &api.ListBundlesRequest{})
		if err != nil {
			return err
		}
		messages, size = 0, 0
		for {
			b, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return fmt.Errorf("ListBundles: %w", err)
			}
			messages++
			size += proto.Size(b)
		}
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
	}
	return printJSON(map[string]any{"ms": ms, "messages": messages, "bytes": size})
}
