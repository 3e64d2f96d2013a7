// `kode-gopher serve` driven by the official Go SDK client (github.com/modelcontextprotocol/go-sdk)
// over stdio: once with the SDK's default, protocol 2026-07-28 (server/discover, no initialize),
// and once pinned to the legacy 2025-06-18 handshake: each tool, and the system prompt. The `mcp` test suite runs it with
// `go test`, with $KG_CLI and $KG_MCP_CONFIG naming the binary and the daemon's config.
package mcpclient

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func requiredEnv(t *testing.T, name string) string {
	t.Helper()
	value := os.Getenv(name)
	if value == "" {
		t.Fatalf("this test needs $%s (set by tests/mcp/meson.build)", name)
	}
	return value
}

// client connects a fresh `kode-gopher serve`, asking for protocolVersion ("" = SDK default).
func connect(t *testing.T, ctx context.Context, protocolVersion string,
	progress func(*mcp.ProgressNotificationParams)) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(requiredEnv(t, "KG_CLI"), "--config", requiredEnv(t, "KG_MCP_CONFIG"),
		"serve", "--log-level", "debug")
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "kode-gopher-go-sdk-test", Version: "1.0.0"},
		&mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
				if progress != nil {
					progress(req.Params)
				}
			},
		})
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd},
		&mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = session.Close() })
	return session
}

// validate checks a structuredContent value against a tool's outputSchema with the JSON Schema
// validator the Go SDK itself depends on.
func validate(t *testing.T, tool *mcp.Tool, structured any) {
	t.Helper()
	raw, err := json.Marshal(tool.OutputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatalf("%s's outputSchema does not parse: %v", tool.Name, err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatalf("%s's outputSchema does not resolve: %v", tool.Name, err)
	}
	// Validate plain JSON values, as a client receives them.
	raw, _ = json.Marshal(structured)
	var instance any
	_ = json.Unmarshal(raw, &instance)
	if err := resolved.Validate(instance); err != nil {
		t.Fatalf("%s's structuredContent does not match its outputSchema: %v\n%s", tool.Name, err, raw)
	}
}

func structuredMap(t *testing.T, result *mcp.CallToolResult) map[string]any {
	t.Helper()
	raw, err := json.Marshal(result.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("structuredContent is not an object: %s", raw)
	}
	return m
}

func text(t *testing.T, result *mcp.CallToolResult) string {
	t.Helper()
	if len(result.Content) != 1 {
		t.Fatalf("want one content block, got %d", len(result.Content))
	}
	block, ok := result.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("want a text block, got %T", result.Content[0])
	}
	return block.Text
}

// curatedPackages returns the blank imports of curated.go, the list the prompt must name.
func curatedPackages(t *testing.T) []string {
	t.Helper()
	source, err := os.ReadFile(requiredEnv(t, "KG_CURATED_GO"))
	if err != nil {
		t.Fatal(err)
	}
	var packages []string
	for _, m := range regexp.MustCompile(`(?m)^\s*_\s+"([^"]+)"\s*$`).FindAllStringSubmatch(string(source), -1) {
		packages = append(packages, m[1])
	}
	if len(packages) == 0 {
		t.Fatal("curated.go has no blank imports")
	}
	return packages
}

// checkPrompt lists and gets the system prompt.
func checkPrompt(t *testing.T, ctx context.Context, session *mcp.ClientSession) {
	t.Helper()
	if session.InitializeResult().Capabilities.Prompts == nil {
		t.Fatal("the server does not declare the prompts capability")
	}
	listed, err := session.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatalf("prompts/list: %v", err)
	}
	if len(listed.Prompts) != 1 || listed.Prompts[0].Name != "kode_gopher_system_prompt" ||
		len(listed.Prompts[0].Arguments) != 0 {
		raw, _ := json.Marshal(listed.Prompts)
		t.Fatalf("prompts/list: got %s", raw)
	}
	got, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "kode_gopher_system_prompt"})
	if err != nil {
		t.Fatalf("prompts/get: %v", err)
	}
	if len(got.Messages) != 1 || got.Messages[0].Role != "user" {
		t.Fatalf("prompts/get: want one user message, got %d", len(got.Messages))
	}
	block, ok := got.Messages[0].Content.(*mcp.TextContent)
	if !ok {
		t.Fatalf("prompts/get: want a text message, got %T", got.Messages[0].Content)
	}
	for _, pkg := range curatedPackages(t) {
		if !strings.Contains(block.Text, "  - "+pkg+"\n") {
			t.Errorf("the prompt does not name the curated package %s", pkg)
		}
	}
	if _, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "no_such_prompt"}); err == nil ||
		!strings.Contains(err.Error(), `unknown prompt "no_such_prompt"`) {
		t.Fatalf("prompts/get of an unknown prompt: want an error naming it, got %v", err)
	}
}

func exercise(t *testing.T, protocolVersion, wantVersion string) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var steps [][2]float64 // progress, total
	session := connect(t, ctx, protocolVersion, func(p *mcp.ProgressNotificationParams) {
		mu.Lock()
		defer mu.Unlock()
		steps = append(steps, [2]float64{p.Progress, p.Total})
	})

	init := session.InitializeResult()
	if init.ProtocolVersion != wantVersion {
		t.Fatalf("protocol version: got %q, want %q", init.ProtocolVersion, wantVersion)
	}
	if init.ServerInfo == nil || init.ServerInfo.Name != "kode-gopher" {
		t.Fatalf("server info: got %+v", init.ServerInfo)
	}

	listed, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	tools := map[string]*mcp.Tool{}
	var names []string
	for _, tool := range listed.Tools {
		tools[tool.Name] = tool
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, ","); got != "execute_go_code,gcp_auth_status,lookup_package_docs" {
		t.Fatalf("tools: got %s", got)
	}

	checkPrompt(t, ctx, session)

	// A snippet, with progress.
	params := &mcp.CallToolParams{Name: "execute_go_code", Arguments: map[string]any{
		"code": "package snippet\n\nimport \"context\"\n\n// " + t.Name() + " " + time.Now().String() +
			"\nfunc run(ctx context.Context) (any, error) {\n\treturn []string{\"go\", \"sdk\"}, nil\n}\n",
	}}
	params.SetProgressToken("go-sdk-" + wantVersion)
	result, err := session.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("execute_go_code: %v", err)
	}
	if result.IsError {
		t.Fatalf("execute_go_code failed: %s", text(t, result))
	}
	validate(t, tools["execute_go_code"], result.StructuredContent)
	s := structuredMap(t, result)
	if s["status"] != "ok" || s["mode"] != "wrapped" || s["exit_code"] != float64(0) {
		t.Fatalf("execute_go_code: status %v mode %v exit %v", s["status"], s["mode"], s["exit_code"])
	}
	value, _ := json.Marshal(s["result"])
	if string(value) != `{"kind":"ok","value":["go","sdk"]}` {
		t.Fatalf("result: got %s", value)
	}
	if !strings.HasPrefix(text(t, result), "phase=run mode=wrapped runtime=compiled-go exit=0 (") {
		t.Fatalf("text: got %q", text(t, result))
	}
	mu.Lock()
	got, _ := json.Marshal(steps)
	mu.Unlock()
	if string(got) != "[[1,3],[2,3],[3,3]]" {
		t.Fatalf("progress (progress, total): got %s, want [[1,3],[2,3],[3,3]]", got)
	}

	// api_policy: a bad value is a tool error naming it; a good one reaches the daemon, which
	// runs the call under it (the default network's egress proxy reads Google API requests).
	result, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "execute_go_code", Arguments: map[string]any{
		"code":       "package main\n\nfunc main() {}\n",
		"api_policy": map[string]any{"buckets": []string{"-bad-bucket"}},
	}})
	if err != nil || !result.IsError || !strings.HasPrefix(text(t, result),
		`execute_go_code: "api_policy"."buckets": "-bad-bucket" is not a bucket name`) {
		t.Fatalf("execute_go_code with a bad api_policy: err %v, result %q", err, text(t, result))
	}
	result, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "execute_go_code", Arguments: map[string]any{
		"code":       "package main\n\nfunc main() {}\n",
		"api_policy": map[string]any{"read_only": true, "projects": []string{"my-project"}},
	}})
	if err != nil || result.IsError {
		t.Fatalf("execute_go_code with api_policy under the egress proxy: err %v, result %q", err, text(t, result))
	}

	// Credentials status.
	result, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "gcp_auth_status"})
	if err != nil {
		t.Fatalf("gcp_auth_status: %v", err)
	}
	validate(t, tools["gcp_auth_status"], result.StructuredContent)
	raw, _ := json.Marshal(result.StructuredContent)
	var auth struct {
		Mode      string `json:"mode"`
		LoginHint string `json:"login_hint"`
	}
	if err := json.Unmarshal(raw, &auth); err != nil || result.IsError || auth.Mode != "none" || auth.LoginHint == "" {
		t.Fatalf("gcp_auth_status: isError %v, structured %s", result.IsError, raw)
	}

	// Package docs.
	result, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "lookup_package_docs",
		Arguments: map[string]any{"package": "cloud.google.com/go/storage", "symbol": "NewClient"}})
	if err != nil {
		t.Fatalf("lookup_package_docs: %v", err)
	}
	validate(t, tools["lookup_package_docs"], result.StructuredContent)
	docs := structuredMap(t, result)
	if result.IsError || docs["package"] != "cloud.google.com/go/storage" || docs["symbol"] != "NewClient" ||
		!strings.Contains(docs["docs"].(string), "func NewClient(ctx context.Context, opts ...option.ClientOption) (*Client, error)") {
		t.Fatalf("lookup_package_docs: isError %v, %v", result.IsError, docs)
	}
}

func TestModernProtocol(t *testing.T) { exercise(t, "", "2026-07-28") }

func TestLegacyProtocol20250618(t *testing.T) { exercise(t, "2025-06-18", "2025-06-18") }
