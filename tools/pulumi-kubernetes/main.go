// Command pulumi-resource-kubernetes serves pulumi-kubernetes' provider as its own main does
// (provider/v4 cmd/pulumi-resource-kubernetes/main.go). Upstream embeds schema-embed.json and
// terraform-mapping-embed.json, which its build generates and which the module zip does not hold; the
// committed schema.json and terraform-mapping.json beside them are copied here from the module before the
// build (tools/catalog.ts, embeds) and embedded instead.
package main

import (
	_ "embed"

	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)

//go:embed schema.json
var pulumiSchema []byte

//go:embed terraform-mapping.json
var terraformMapping []byte

func main() {
	provider.Serve("kubernetes", version.Version, pulumiSchema, terraformMapping)
}
