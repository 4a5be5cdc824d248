#!/usr/bin/env python3
"""The mixin's dashboards against a real Prometheus (tests/unit/mixin.sh).

  mixin_queries.py PROM_URL DASHBOARD.json...

Every panel target's expr, the template variables replaced as Grafana
would with "All" selected (.*) and $__rate_interval by 1m, is an instant
query that must return at least one series; so must each label_values
query of the variables.  A target that needs a source the test does not
run is not queried: it is named, with where it is tested instead.
Prints one line per query and "mixin-queries: N passed, N failed"."""
import json
import re
import sys
import urllib.parse
import urllib.request

# what needs a source this test cannot run, and where it is tested instead
ELSEWHERE = [
    (re.compile(r'node_mountstats_'), "node_exporter's mountstats collector (an NFS mount): "
     "dist/mixin/tests/alerts_test.yaml evaluates this expr on input series"),
    (re.compile(r'offset 1h'), "an hour of history: dist/mixin/tests/alerts_test.yaml evaluates this "
     "expr on the faults' input series (and the phase-shift alert on the same recorded share)"),
]


def subst(expr):
    expr = expr.replace('$__rate_interval', '1m')
    return re.sub(r'\$\{?(\w+)\}?', '.*', expr)


def get(url, path, params):
    q = urllib.parse.urlencode(params, doseq=True)
    with urllib.request.urlopen("%s%s?%s" % (url, path, q), timeout=30) as r:
        return json.load(r)


def main():
    url, files = sys.argv[1], sys.argv[2:]
    npass = nfail = 0
    elsewhere = []
    for f in files:
        d = json.load(open(f))
        name = f.rsplit('/', 1)[-1]
        for v in d.get('templating', {}).get('list', []):
            if v.get('type') != 'query':
                continue
            m = re.match(r'label_values\((.*), *(\w+)\)$', v['definition'])
            res = get(url, '/api/v1/label/%s/values' % m.group(2), {'match[]': subst(m.group(1))})['data']
            ok = len(res) > 0
            npass, nfail = npass + ok, nfail + (not ok)
            print('%s %s: variable %s: %d values' % ('ok  ' if ok else 'FAIL', name, v['name'], len(res)))
        for p in d['panels']:
            for t in p.get('targets', []):
                e = t['expr']
                why = [w for r, w in ELSEWHERE if r.search(e)]
                if why:
                    elsewhere.append('%s "%s": needs %s' % (name, p['title'], why[0]))
                    continue
                r = get(url, '/api/v1/query', {'query': subst(e)})
                res = r['data']['result'] if r.get('status') == 'success' else []
                finite = sum(1 for s in res if s['value'][1] not in ('NaN', '+Inf', '-Inf'))
                ok = len(res) > 0
                npass, nfail = npass + ok, nfail + (not ok)
                print('%s %s "%s" [%s]: %d series, %d finite' % ('ok  ' if ok else 'FAIL', name, p['title'],
                                                                   t.get('legendFormat', ''), len(res), finite))
                if not ok:
                    print('     query: %s' % subst(e))
    for e in elsewhere:
        print('not queried: %s' % e)
    print('mixin-queries: %d passed, %d failed' % (npass, nfail))
    return 1 if nfail else 0


sys.exit(main())
