// Drive @kubernetes/client-node's informer (makeInformer) against a server
// and report what it sees, one JSON object per line on stdout:
//
//   {"ev":"connect"}                          a list or watch (re)starts
//   {"ev":"synced","n":N,"rv":"R"}            the first list is applied
//   {"ev":"add"|"update"|"delete","ns":..,"name":..,"rv":..}
//   {"ev":"error","msg":..,"code":..}         the informer stopped; restarted in 1 s
//   {"ev":"cache","rv":R,"items":[[ns,name,rv],...]}   answer to "dump" on stdin
//
// Usage: node informer.mjs SERVER_URL NAMESPACE [RESOURCE]
// RESOURCE is pods (default) or configmaps. The client library is used as
// any controller would use it; nothing here reaches into its internals.
import * as readline from 'node:readline';
import * as k8s from '@kubernetes/client-node';

const [server, namespace, resource = 'pods'] = process.argv.slice(2);
if (!server || !namespace) {
    process.stderr.write('usage: node informer.mjs SERVER_URL NAMESPACE [pods|configmaps]\n');
    process.exit(2);
}

const emit = (o) => process.stdout.write(JSON.stringify(o) + '\n');

const kc = new k8s.KubeConfig();
kc.loadFromOptions({
    clusters: [{ name: 'proxy', server, skipTLSVerify: true }],
    users: [{ name: 'anonymous' }],
    contexts: [{ name: 'proxy', cluster: 'proxy', user: 'anonymous', namespace }],
    currentContext: 'proxy',
});
const api = kc.makeApiClient(k8s.CoreV1Api);
const path = `/api/v1/namespaces/${namespace}/${resource}`;
const listFn =
    resource === 'configmaps'
        ? () => api.listNamespacedConfigMap({ namespace })
        : () => api.listNamespacedPod({ namespace });
const informer = k8s.makeInformer(kc, path, listFn);

const meta = (o) => ({
    ns: o.metadata?.namespace ?? '',
    name: o.metadata?.name ?? '',
    rv: o.metadata?.resourceVersion ?? '',
});
informer.on('connect', () => emit({ ev: 'connect' }));
informer.on('add', (o) => emit({ ev: 'add', ...meta(o) }));
informer.on('update', (o) => emit({ ev: 'update', ...meta(o) }));
informer.on('delete', (o) => emit({ ev: 'delete', ...meta(o) }));
let failedSinceStart = false;
let stopping = false;
async function run() {
    failedSinceStart = false;
    await informer.start();
    // start() returns after the list and the watch request; a failure in
    // either went to the 'error' handler instead of being thrown.
    if (!failedSinceStart) {
        emit({ ev: 'synced', n: informer.list().length, rv: informer.latestResourceVersion() });
    }
}
informer.on('error', (err) => {
    if (stopping) {
        return; // our own stop() aborts the watch
    }
    failedSinceStart = true;
    emit({ ev: 'error', msg: String(err?.message ?? err), code: err?.statusCode ?? err?.code ?? null });
    // What the library's README recommends: restart after an error.
    setTimeout(() => run().catch((e) => emit({ ev: 'error', msg: String(e?.stack ?? e) })), 1000);
});

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
    if (line.trim() === 'dump') {
        const items = informer.list().map((o) => {
            const m = meta(o);
            return [m.ns, m.name, m.rv];
        });
        items.sort();
        emit({ ev: 'cache', rv: informer.latestResourceVersion(), items });
    }
});
rl.on('close', () => {
    stopping = true;
    informer.stop().finally(() => process.exit(0));
});

try {
    await run();
} catch (err) {
    emit({ ev: 'error', msg: String(err?.stack ?? err), fatal: true });
    process.exit(1);
}
