/**
 * What client-go refuses in a kubeconfig file before it builds a client for the chosen context, one entry
 * per rule, each with where client-go decides it. Sources are files of k8s.io/client-go v0.35.4, the
 * release kubectl 1.35.4 here is built from (tools/kubernetes/go.mod); Go's own packages are Go 1.26.8's.
 * The Kubernetes provider (pulumi-kubernetes v4.25.0) is built with client-go v0.33.3, whose files named
 * here differ from v0.35.4's only by the exec plugin policy, which kubeconfig files cannot set. The checks
 * are in load.ts (the file) and check.ts (the context in use).
 */

export const CLIENT_GO = "k8s.io/client-go@v0.35.4";

export interface KubeconfigRule {
  /** What is wrong, after the key path (a problem adds client-go's own message). */
  readonly rule: string;
  /** Where client-go decides it: file and function, in CLIENT_GO unless another module is named. */
  readonly source: string;
}

const rules = {
  // Loading the file: clientcmd.LoadFromFile, for every entry of the file, whichever context is used.
  yaml: {
    rule: "does not parse as YAML",
    source:
      "tools/clientcmd/loader.go Load (sigs.k8s.io/yaml YAMLToJSON: YAML 1.1 as go-yaml v2 reads it, the first document only)",
  },
  topLevel: {
    rule: "is not a kubeconfig: its top level is not a map of keys",
    source: "tools/clientcmd/loader.go Load (the codec decodes a JSON object into api/v1 Config)",
  },
  version: {
    rule: "is not a kubeconfig: apiVersion must be v1 and kind Config (or unset)",
    source: "tools/clientcmd/api/latest/latest.go Codec, api/v1/register.go (Config in version v1 only)",
  },
  type: {
    rule: "has the wrong type",
    source: "tools/clientcmd/api/v1/types.go (encoding/json Unmarshal into each field's Go type)",
  },
  base64: {
    rule: "is not base64",
    source:
      "tools/clientcmd/api/v1/types.go []byte fields (encoding/json decodes them with base64.StdEncoding)",
  },
  duplicate: {
    rule: "repeats a name of its list",
    source: "tools/clientcmd/api/v1/conversion.go Convert_Slice_v1_Named*_To_Map_string_To_*",
  },
  // The context in use: kubectl's DirectClientConfig and `config view --minify`.
  empty: {
    rule: "is an empty kubeconfig: no clusters, users, contexts or current-context",
    source: "tools/clientcmd/validation.go ConfirmUsable (ErrEmptyConfig), api/helpers.go IsConfigEmpty",
  },
  noContext: {
    rule: "is required: the file sets no current-context",
    source: "tools/clientcmd/validation.go ConfirmUsable (ErrNoContext), api/helpers.go MinifyConfig",
  },
  contextMissing: {
    rule: "names no context of the file",
    source:
      "tools/clientcmd/client_config.go DirectClientConfig.getContext and ConfirmUsable (errContextNotFound)",
  },
  currentContextMissing: {
    rule: "names no context of the file, and the Kubernetes provider checks it even with cluster.kubeconfig.context set",
    source:
      "tools/clientcmd/client_config.go NewDefaultClientConfig and DirectClientConfig.ConfirmUsable; pulumi-kubernetes v4.25.0 provider/pkg/provider/provider.go builds its client with NewDefaultClientConfig",
  },
  clusterUnset: {
    rule: "names no cluster: client-go then uses an empty one, with no server",
    source: "tools/clientcmd/validation.go validateContext, client_config.go DirectClientConfig.getCluster",
  },
  clusterMissing: {
    rule: "names a cluster the file does not have",
    source: "tools/clientcmd/validation.go validateContext, api/helpers.go MinifyConfig",
  },
  userUnset: {
    rule: "names no user: client-go then has no credentials and asks for a username on standard input",
    source:
      "tools/clientcmd/validation.go validateContext, client_config.go getUserIdentificationPartialConfig",
  },
  userMissing: {
    rule: "names a user the file does not have",
    source: "tools/clientcmd/validation.go validateContext, api/helpers.go MinifyConfig",
  },
  // The context's cluster.
  server: {
    rule: "is required: the cluster has no server",
    source: "tools/clientcmd/validation.go validateClusterInfo (ErrEmptyCluster, no server found)",
  },
  serverScheme: {
    rule: "has no https:// or http:// scheme: client-go then speaks plain HTTP to it and sends neither the user's credentials nor the cluster's CA",
    source:
      "tools/clientcmd/client_config.go DirectClientConfig.ClientConfig (credentials and CA only when rest.IsConfigTransportTLS), rest/url_utils.go DefaultServerURL (no scheme: http)",
  },
  proxyUrl: {
    rule: "is not an http, https or socks5 URL",
    source: "tools/clientcmd/validation.go validateClusterInfo, helpers.go parseProxyURL",
  },
  caBoth: {
    rule: "is set together with certificate-authority-data",
    source: "tools/clientcmd/validation.go validateClusterInfo",
  },
  caFile: {
    rule: "names a file that cannot be read",
    source:
      "tools/clientcmd/validation.go validateClusterInfo (os.Open), transport/transport.go loadTLSFiles",
  },
  insecureWithCa: {
    rule: "is true together with a certificate authority",
    source: "transport/transport.go TLSConfigFor",
  },
  caData: {
    rule: "holds no PEM certificate client-go can use",
    source:
      "transport/transport.go rootCertPool and createErrorParsingCAData (crypto/x509 CertPool.AppendCertsFromPEM)",
  },
  // The context's user.
  authMethods: {
    rule: "sets more than one of token and username/password",
    source: "tools/clientcmd/validation.go validateAuthInfo",
  },
  certBoth: {
    rule: "is set together with client-certificate-data",
    source: "tools/clientcmd/validation.go validateAuthInfo",
  },
  keyBoth: {
    rule: "is set together with client-key-data",
    source: "tools/clientcmd/validation.go validateAuthInfo",
  },
  keyMissing: {
    rule: "has no client-key-data or client-key beside it",
    source: "tools/clientcmd/validation.go validateAuthInfo",
  },
  certFile: {
    rule: "names a file that cannot be read",
    source: "tools/clientcmd/validation.go validateAuthInfo (os.Open), transport/transport.go loadTLSFiles",
  },
  keyPair: {
    rule: "is not a PEM certificate whose private key is the user's client key",
    source:
      "transport/transport.go TLSConfigFor, when either comes from a -data field (crypto/tls X509KeyPair, Go 1.26.8); two files are read only when the server asks for a client certificate (transport/cert_rotation.go)",
  },
  tokenFile: {
    rule: "names a file that cannot be read",
    source: "tools/clientcmd/client_config.go DirectClientConfig.getUserIdentificationPartialConfig",
  },
  noCredentials: {
    rule: "has no credentials (token, tokenFile, client certificate, username, exec or auth-provider): client-go asks for a username on standard input, and the provider has none",
    source:
      "tools/clientcmd/client_config.go getUserIdentificationPartialConfig and canIdentifyUser (auth_loaders.go PromptingAuthLoader)",
  },
  impersonate: {
    rule: "is set without `as`, the user to impersonate",
    source: "tools/clientcmd/validation.go validateAuthInfo",
  },
  execWithAuthProvider: {
    rule: "is set together with auth-provider",
    source: "tools/clientcmd/validation.go validateAuthInfo, rest/transport.go Config.TransportConfig",
  },
  execCommand: {
    rule: "is required for an exec credential plugin",
    source: "tools/clientcmd/validation.go validateAuthInfo",
  },
  execApiVersionUnset: {
    rule: "is required for an exec credential plugin",
    source: "tools/clientcmd/validation.go validateAuthInfo",
  },
  execApiVersion: {
    rule: "must be client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1",
    source: "plugin/pkg/client/auth/exec/exec.go newAuthenticator (apiVersions)",
  },
  execEnvName: {
    rule: "is required for each env entry of an exec credential plugin",
    source: "tools/clientcmd/validation.go validateAuthInfo",
  },
  execInteractiveUnset: {
    rule: "is required with apiVersion client.authentication.k8s.io/v1 (v1beta1 defaults it to IfAvailable)",
    source: "tools/clientcmd/validation.go validateAuthInfo, api/v1/defaults.go SetDefaults_ExecConfig",
  },
  execInteractive: {
    rule: "must be Never, IfAvailable or Always",
    source: "tools/clientcmd/validation.go validateAuthInfo",
  },
  execInteractiveAlways: {
    rule: "is Always, which needs a terminal on standard input, and the provider runs plugins without one",
    source: "plugin/pkg/client/auth/exec/exec.go isInteractive",
  },
  authProvider: {
    rule: "names no auth-provider plugin client-go can use",
    source:
      "rest/plugin.go GetAuthProvider; plugin/pkg/client/auth/gcp/gcp_stub.go, azure/azure_stub.go (removed), oidc/oidc.go newOIDCAuthProvider",
  },
} as const satisfies Record<string, KubeconfigRule>;

export type KubeconfigRuleId = keyof typeof rules;

export const KUBECONFIG_RULES: Readonly<Record<KubeconfigRuleId, KubeconfigRule>> = rules;

/**
 * A rule of validation.go that kubectl and the provider never apply: validateContext's namespace check runs
 * only in clientcmd.Validate and clientcmd.ConfirmUsable, which neither calls (DirectClientConfig has its
 * own ConfirmUsable, without validateContext). Checked with kubectl 1.35.4: a context whose namespace is
 * no DNS label passes `config view --minify` and `get --raw /version`.
 */
export const NOT_APPLIED = {
  namespace: {
    rule: "a context's namespace must be a DNS-1123 label",
    source:
      "tools/clientcmd/validation.go validateContext (k8s.io/apimachinery@v0.35.4 pkg/util/validation IsDNS1123Label)",
  },
} as const satisfies Record<string, KubeconfigRule>;
