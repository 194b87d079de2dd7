#!/usr/bin/env python3
"""Offline checks of deploy/kubernetes/ and deploy/compose.yaml (make test-deploy, through
Tests/system/deploy/check.sh). Prints PASS/FAIL lines; exits 1 on any FAIL.

  check_manifests.py --hub-server .build/debug/hub-server [--kubernetes-validate PATH]

1. configmap.yaml and the Deployment's volume items are what deploy/kubernetes/configmap.py
   writes from Config/ and deploy/server.json; the image comes from kustomization.yaml's one
   `images:` entry (the manifests rendered offline as `kubectl kustomize` renders them name
   exactly that image), and docs/DEPLOYMENT.md's first command sets it;
2. every resource validates with kubernetes-validate --strict (offline schemas shipped in the
   package) for Kubernetes KUBERNETES_VERSIONS;
3. the ConfigMap, laid out as the kubelet does (..data symlinks), is a config hub-server
   validates, and hub:catalog renders from it (its file: content through the symlinks);
4. the pods and the compose replicas listen on every interface (HUB_HOST=0.0.0.0); the numbers agree: terminationGracePeriodSeconds above preStop + drainDelaySeconds +
   drainSeconds, probes on /ready, /health; the ingress-nginx http-snippet passes `nginx -t`
   and defines the variable the Ingress hashes on; memory limit = request;
5. deploy/compose.yaml parses, has three replicas and a balancer with the drain's grace, and
   its balancer rewrite names the three replicas (`docker compose config` too when Docker is
   installed).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
K8S = os.path.join(ROOT, "deploy", "kubernetes")
KUBERNETES_VERSIONS = ["1.33.0", "1.37.0"]
RESOURCES = ["configmap.yaml", "deployment.yaml", "service.yaml", "poddisruptionbudget.yaml",
             "horizontalpodautoscaler.yaml", "ingress.yaml"]
failures = []


def result(ok, name, detail=""):
    print(("PASS" if ok else "FAIL") + f": {name}" + (f" ({detail})" if detail else ""))
    if not ok:
        failures.append(name)


def load(name):
    with open(os.path.join(K8S, name)) as handle:
        return [doc for doc in yaml.safe_load_all(handle) if doc]


def seconds(value):
    return float(str(value).rstrip("s"))


def split_image(image):
    """(name, tag, digest) of `name[:tag][@digest]` (a registry port is part of the name)."""
    name, _, digest = image.partition("@")
    slash = name.rfind("/")
    colon = name.rfind(":")
    tag = ""
    if colon > slash:
        name, tag = name[:colon], name[colon + 1:]
    return name, tag, digest


def containers(document):
    """The containers and init containers of a workload (Deployment, StatefulSet, Job, ...)."""
    spec = ((document.get("spec") or {}).get("template") or {}).get("spec") or {}
    return (spec.get("containers") or []) + (spec.get("initContainers") or [])


def kustomize_images(kustomization, documents):
    """`documents` with kustomization's `images:` applied as kustomize applies them: a container
    image whose name equals an entry's `name` takes its `newName`, and its `newTag` or `digest`.
    Returns the rendered documents and the images no entry matched."""
    unmatched = []
    for document in documents:
        for container in containers(document):
            name, tag, digest = split_image(container["image"])
            entry = next((e for e in kustomization.get("images") or [] if e["name"] == name), None)
            if entry is None:
                unmatched.append(container["image"])
                continue
            name = entry.get("newName", name)
            if "digest" in entry:
                container["image"] = f"{name}@{entry['digest']}"
            else:
                tag = entry.get("newTag", tag)
                container["image"] = name + (f":{tag}" if tag else "") + (f"@{digest}" if digest else "")
    return documents, unmatched


def check_image(kustomization):
    """The image is set in one place, kustomization.yaml's images: entry, and DEPLOYMENT.md's
    first command sets it."""
    entries = kustomization.get("images") or []
    result(len(entries) == 1 and {"name", "newName", "newTag"} <= set(entries[0]),
           "kustomization.yaml has one images: entry with name, newName and newTag", entries)
    result(sorted(kustomization.get("resources", [])) == sorted(RESOURCES), "kustomization.yaml lists every manifest",
           kustomization.get("resources"))
    if len(entries) != 1:
        return
    entry = entries[0]
    documents = [doc for name in kustomization.get("resources", []) for doc in load(name)]
    rendered, unmatched = kustomize_images(kustomization, documents)
    images = [c["image"] for doc in rendered for c in containers(doc)]
    expected = f"{entry['newName']}:{entry['newTag']}"
    result(not unmatched and images and all(image == expected for image in images),
           "the rendered manifests name the image of the images: entry, and only it",
           f"{images}; not matched by an entry: {unmatched}")
    guide = open(os.path.join(ROOT, "docs", "DEPLOYMENT.md")).read()
    first = re.search(r"^```sh\n(.*?)^```", guide, re.S | re.M)
    command = f"kustomize edit set image {entry['name']}="
    result(first is not None and command in first.group(1) and "kubectl apply -k deploy/kubernetes" in first.group(1),
           f"docs/DEPLOYMENT.md's first commands set the image ({command}...) and apply the kustomization",
           first.group(1).strip() if first else "no sh block")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hub-server", required=True)
    parser.add_argument("--kubernetes-validate", default=shutil.which("kubernetes-validate") or
                        os.path.join(ROOT, ".venv", "bin", "kubernetes-validate"))
    args = parser.parse_args()

    # 1. Generated files are current.
    check = subprocess.run([sys.executable, os.path.join(K8S, "configmap.py"), "--check"], capture_output=True, text=True)
    result(check.returncode == 0, "deploy/kubernetes/configmap.yaml and the volume items are current", check.stderr.strip())

    check_image(yaml.safe_load(open(os.path.join(K8S, "kustomization.yaml"))))

    # 2. Schemas, offline.
    if not os.path.exists(args.kubernetes_validate):
        result(False, "kubernetes-validate is installed (make deps-deploy installs it into .venv)")
    else:
        for version in KUBERNETES_VERSIONS:
            run = subprocess.run([args.kubernetes_validate, "--strict", "--quiet", "-k", version] +
                                 [os.path.join(K8S, name) for name in RESOURCES], capture_output=True, text=True)
            result(run.returncode == 0, f"kubernetes-validate --strict, Kubernetes {version}: {len(RESOURCES)} files",
                   (run.stdout + run.stderr).strip())

    # 3. The ConfigMap is a config hub-server serves, in the kubelet's layout.
    work = tempfile.mkdtemp(prefix="hub-manifests-")
    try:
        config = os.path.join(work, "config")
        os.makedirs(config)
        subprocess.check_call([sys.executable, os.path.join(K8S, "configmap.py"), "--materialize", config])
        validate = subprocess.run([args.hub_server, "validate", config], capture_output=True, text=True)
        result(validate.returncode == 0, "hub-server validate: the ConfigMap mounted as the kubelet lays it out",
               (validate.stdout + validate.stderr).strip())
        render = subprocess.run([args.hub_server, "render", "hub:catalog", "--config", config], capture_output=True, text=True)
        ok = render.returncode == 0 and len(json.loads(render.stdout or "{}").get("body", [])) == 10
        result(ok, "hub-server render hub:catalog from it (file: content through the ..data symlinks)", render.stderr.strip()[:300])
    finally:
        shutil.rmtree(work, ignore_errors=True)

    # 4. The numbers agree.
    deployment = load("deployment.yaml")[0]
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    server = json.load(open(os.path.join(ROOT, "deploy", "server.json")))
    timeouts = server["timeouts"]
    pre_stop = container["lifecycle"]["preStop"]["sleep"]["seconds"]
    needed = pre_stop + timeouts["drainDelaySeconds"] + timeouts["drainSeconds"]
    grace = pod["terminationGracePeriodSeconds"]
    result(grace > needed, "terminationGracePeriodSeconds above preStop + drainDelaySeconds + drainSeconds",
           f"{grace} s > {pre_stop} + {timeouts['drainDelaySeconds']} + {timeouts['drainSeconds']} s")
    probes = (container["readinessProbe"]["httpGet"]["path"], container["livenessProbe"]["httpGet"]["path"],
              container["startupProbe"]["httpGet"]["path"])
    result(probes == ("/ready", "/health", "/health"), "probes: readiness /ready, liveness and startup /health", probes)
    security = container["securityContext"]
    result(pod["securityContext"]["runAsNonRoot"] and security["readOnlyRootFilesystem"]
           and not security["allowPrivilegeEscalation"], "non-root, read-only root filesystem, no privilege escalation")
    resources = container["resources"]
    result(resources["limits"]["memory"] == resources["requests"]["memory"], "memory request = limit",
           resources["limits"]["memory"])
    mounts = {m["name"]: m for m in container["volumeMounts"]}
    env = {e["name"]: e.get("value") for e in container["env"]}
    secret = next((e["valueFrom"]["secretKeyRef"] for e in container["env"]
                   if e["name"] == "HUB_SESSION_KEYS" and "valueFrom" in e), None)
    result(bool(secret) and not secret.get("optional", False),
           "the pods share session keys: HUB_SESSION_KEYS from a Secret (required)", secret)
    state_secret = next((e["valueFrom"]["secretKeyRef"] for e in container["env"]
                         if e["name"] == "HUB_STATE_URL" and "valueFrom" in e), None)
    result(env.get("HUB_STATE_BACKEND") == "postgres" and bool(state_secret) and not state_secret.get("optional", False),
           "the pods share one PostgreSQL state store: HUB_STATE_URL from a Secret (required)", state_secret)
    result(env.get("HUB_CONFIG") == mounts["config"]["mountPath"] and "subPath" not in mounts["config"],
           "the ConfigMap is mounted as the directory HUB_CONFIG names (no subPath: updates arrive)")
    result(env.get("HUB_HOST") == "0.0.0.0", "the pod listens on every interface (HUB_HOST=0.0.0.0)", env.get("HUB_HOST"))
    ingresses = load("ingress.yaml")
    keys = {i["metadata"]["annotations"]["nginx.ingress.kubernetes.io/upstream-hash-by"] for i in ingresses}
    values = yaml.safe_load(open(os.path.join(K8S, "ingress-nginx-values.yaml")))
    snippet = values["controller"]["config"]["http-snippet"]
    defined = set(re.findall(r"map \S+ (\$\w+) \{", snippet))
    result(len(keys) == 1 and keys <= defined, "both Ingresses hash on a variable the http-snippet defines", f"{keys} in {defined}")
    nginx = shutil.which("nginx")
    if nginx:
        prefix = tempfile.mkdtemp(prefix="hub-snippet-")
        try:
            os.makedirs(os.path.join(prefix, "logs"))
            with open(os.path.join(prefix, "nginx.conf"), "w") as handle:
                handle.write("events {}\nhttp {\n" + snippet + "\n    upstream pods { hash " + next(iter(keys)) +
                             " consistent; server 127.0.0.1:1; }\n    server { listen 127.0.0.1:1; location / "
                             "{ proxy_pass http://pods; } }\n}\n")
            run = subprocess.run([nginx, "-t", "-q", "-p", prefix, "-c", "nginx.conf", "-e", os.path.join(prefix, "logs", "error.log"),
                                  "-g", f"pid {prefix}/nginx.pid;"], capture_output=True, text=True)
            result(run.returncode == 0, "nginx -t accepts the ingress-nginx http-snippet", run.stderr.strip())
        finally:
            shutil.rmtree(prefix, ignore_errors=True)
    else:
        result(False, "nginx is installed (make deps-deploy)")

    # 5. Compose.
    compose_path = os.path.join(ROOT, "deploy", "compose.yaml")
    compose = yaml.safe_load(open(compose_path))
    services = compose["services"]
    replicas = [name for name in ("hub1", "hub2", "hub3") if name in services]
    ok = len(replicas) == 3 and "balancer" in services
    for name in replicas:
        service = services[name]
        ok &= (service["read_only"] and str(service["user"]).startswith("10001")
               and (service.get("environment") or {}).get("HUB_HOST") == "0.0.0.0"
               and "${HUB_SESSION_KEYS:?" in str((service.get("environment") or {}).get("HUB_SESSION_KEYS"))
               and seconds(service["stop_grace_period"]) > timeouts["drainDelaySeconds"] + timeouts["drainSeconds"]
               and "/ready" in " ".join(service["healthcheck"]["test"])
               and (service.get("environment") or {}).get("HUB_STATE_BACKEND") == "postgres"
               and "@postgres:5432/" in str((service.get("environment") or {}).get("HUB_STATE_URL"))
               and "postgres" in (service.get("depends_on") or {}))
    ok &= "postgres" in services and "pg_isready" in " ".join(services["postgres"]["healthcheck"]["test"])
    command = " ".join(services["balancer"]["command"])
    rewrite = re.search(r"s/(\S+)/(\S+)/'", command)
    shipped = open(os.path.join(ROOT, "deploy", "nginx", "hubserver.conf")).read()
    if rewrite:
        pattern = rewrite.group(1).replace("\\(", "(").replace("\\)", ")")
        renamed = re.sub(pattern, rewrite.group(2).replace("\\1", "\\g<1>"), shipped)
        ok &= sorted(re.findall(r"server (hub\d):8080 ", renamed)) == replicas
    else:
        ok = False
    result(ok, "deploy/compose.yaml: 3 read-only non-root replicas on every interface sharing HUB_SESSION_KEYS (required) "
               "and one PostgreSQL state store (healthy before they start), "
               "checked on /ready with the drain's grace, "
               "and nginx's servers renamed to them")
    docker = shutil.which("docker")
    has_compose = docker and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0
    if has_compose:
        run = subprocess.run([docker, "compose", "-f", compose_path, "config", "-q"], capture_output=True, text=True)
        result(run.returncode == 0, "docker compose config", run.stderr.strip())
    else:
        print("note: docker compose is not installed; deploy/compose.yaml was checked as YAML and by structure only")

    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
