"""The OpenAPI v3 schemas of Kubernetes' built-in kinds, for checking rendered manifests without an
API server: the documents kube-apiserver itself publishes (api/openapi-spec/v3 of
k8s.io/kubernetes, at the version the k8s test cluster runs, from the Go module proxy).

What `openapi_errors` reports is what a strict server-side apply would refuse for a schema reason:
a field the kind does not have, a value of the wrong type, a missing required field, a value
outside an enum. It does not run the API server's own validation (name formats, port ranges,
cross-field rules): tests/manifests/validate-against-cluster.sh does that against a real one.
"""

import glob
import json
import os
import subprocess
import tempfile

# The version tests/k8s/tools/kubernetes/go.mod pins for the test cluster's kube-apiserver.
KUBERNETES = "k8s.io/kubernetes@v1.36.3"


def download(go):
    """The module's directory in the module cache (downloaded through the proxy when missing)."""
    with tempfile.TemporaryDirectory() as outside_any_module:
        result = subprocess.run([go, "mod", "download", "-json", KUBERNETES],
                                cwd=outside_any_module, capture_output=True, text=True,
                                env=dict(os.environ, GOFLAGS="", GOTOOLCHAIN="local"))
    if result.returncode != 0:
        raise RuntimeError(f"go mod download {KUBERNETES} failed:\n{result.stderr}{result.stdout}")
    return json.loads(result.stdout)["Dir"]


class BuiltinSchemas:
    """{(apiVersion, kind): schema} of every built-in kind, with the shared definitions."""

    def __init__(self, go):
        spec_dir = os.path.join(download(go), "api", "openapi-spec", "v3")
        self.definitions = {}
        self.kinds = {}
        for path in sorted(glob.glob(os.path.join(spec_dir, "*_openapi.json"))):
            with open(path) as f:
                schemas = json.load(f).get("components", {}).get("schemas", {})
            self.definitions.update(schemas)
            for name, schema in schemas.items():
                for gvk in schema.get("x-kubernetes-group-version-kind", []):
                    api_version = (f"{gvk['group']}/{gvk['version']}" if gvk["group"]
                                   else gvk["version"])
                    self.kinds.setdefault((api_version, gvk["kind"]), name)

    def knows(self, api_version, kind):
        return (api_version, kind) in self.kinds

    def errors(self, document):
        name = self.kinds[(document["apiVersion"], document["kind"])]
        return self._errors(document, self.definitions[name], document["kind"])

    def _resolve(self, schema):
        while True:
            if "$ref" in schema:
                schema = self.definitions[schema["$ref"].rsplit("/", 1)[1]]
            elif len(schema.get("allOf", [])) == 1 and "properties" not in schema:
                schema = schema["allOf"][0]
            else:
                return schema

    def _errors(self, value, schema, path):
        schema = self._resolve(schema)
        if "oneOf" in schema:  # Quantity, IntOrString: any one of the alternatives' types
            alternatives = [self._resolve(s) for s in schema["oneOf"]]
            if any(not self._errors(value, s, path) for s in alternatives):
                return []
            kinds = [s.get("type") for s in alternatives]
            return [f"{path}: want one of {kinds}, have {value!r}"]
        kind = schema.get("type")
        if kind == "object" or "properties" in schema:
            if not isinstance(value, dict):
                return [f"{path}: want an object, have {value!r}"]
            errors = []
            properties = schema.get("properties")
            additional = schema.get("additionalProperties")
            for key, item in value.items():
                if properties is not None and key in properties:
                    errors += self._errors(item, properties[key], f"{path}.{key}")
                elif isinstance(additional, dict):
                    errors += self._errors(item, additional, f"{path}.{key}")
                elif properties is not None:
                    errors.append(f"{path}.{key}: not a field of the Kubernetes schema")
            for key in schema.get("required", []):
                if key not in value:
                    errors.append(f"{path}.{key}: required by the Kubernetes schema, missing")
            return errors
        if kind == "array":
            if not isinstance(value, list):
                return [f"{path}: want a list, have {value!r}"]
            errors = []
            for i, item in enumerate(value):
                errors += self._errors(item, schema.get("items", {}), f"{path}[{i}]")
            return errors
        if kind == "string":
            if not isinstance(value, str):
                return [f"{path}: want a string, have {value!r}"]
            if "enum" in schema and value not in schema["enum"]:
                return [f"{path}: {value!r} is not one of {schema['enum']}"]
        elif kind == "integer":
            if not isinstance(value, int) or isinstance(value, bool):
                return [f"{path}: want an integer, have {value!r}"]
        elif kind == "number":
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                return [f"{path}: want a number, have {value!r}"]
        elif kind == "boolean":
            if not isinstance(value, bool):
                return [f"{path}: want true or false, have {value!r}"]
        return []
