/**
 * The script of the HTML page, inlined into it. Plain ES2017 for any current browser; it reads the
 * graph data from the page (no network) and handles events by delegation, so large graphs cost one
 * listener per kind of event, not one per node.
 */

export const PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('graph-data').textContent);
  var pickPackage = document.getElementById('pick-package');
  var pickChannel = document.getElementById('pick-channel');
  var clearButton = document.getElementById('clear-selection');
  var details = document.getElementById('details');
  var main = document.getElementById('graph');
  var packages = Array.prototype.slice.call(document.querySelectorAll('section.package'));
  var selected = null;
  var KINDS = ['replaces', 'skips', 'skipRange'];

  function where(el) {
    var node = el.closest('.node');
    if (!node) return null;
    var lane = node.closest('section.lane');
    if (!lane) return null;
    var pc = lane.getAttribute('data-lane').split('-');
    return { p: +pc[0], c: +pc[1], i: +node.getAttribute('data-index'), node: node, lane: lane };
  }

  function element(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  function row(dl, term, value) {
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) return;
    dl.appendChild(element('dt', term));
    var dd = element('dd');
    if (Array.isArray(value)) {
      value.forEach(function (v, k) {
        if (k > 0) dd.appendChild(document.createElement('br'));
        dd.appendChild(document.createTextNode(v));
      });
    } else dd.textContent = value;
    dl.appendChild(dd);
  }

  function describe(at, path) {
    var ch = data[at.p].channels[at.c];
    var n = ch.nodes[at.i];
    details.textContent = '';
    details.appendChild(element('h2', n.name, 'mono bundle-name'));
    var dl = element('dl');
    row(dl, 'version', n.version || '(none)');
    row(dl, 'package', data[at.p].name);
    row(dl, 'channel', ch.name + (ch.default ? ' (default)' : ''));
    if (n.head) row(dl, 'head', 'yes: the channel head');
    if (!n.listed) row(dl, 'entry', 'not listed in this channel');
    row(dl, 'image', n.image);
    row(dl, 'replaces', n.replaces);
    row(dl, 'skips', n.skips);
    row(dl, 'skipRange', n.skipRange);
    row(dl, 'properties', n.properties);
    row(dl, 'deprecated', n.deprecation);
    var upgrades = links(ch).out[at.i].map(function (k) {
      var e = ch.edges[k];
      return ch.nodes[e[1]].name + ' (' + KINDS[e[2]] + ')';
    });
    row(dl, 'upgrades to', upgrades);
    details.appendChild(dl);
    if (n.problems.length > 0) {
      var ul = element('ul', undefined, 'problems');
      n.problems.forEach(function (p) { ul.appendChild(element('li', p.message, p.severity)); });
      details.appendChild(ul);
    }
    if (path) {
      var steps = path.nodes.length - 1;
      var text = path.reachesHead
        ? (steps === 0 ? 'This bundle is the channel head.' : 'Upgrade path to the head, ' + steps + ' step' + (steps === 1 ? '' : 's') + ':')
        : 'No upgrade path from this bundle reaches a channel head; ' + steps + ' bundle(s) can be reached from it.';
      details.appendChild(element('p', text, 'path-text'));
      if (path.reachesHead && steps > 0) {
        var ol = element('ol', undefined, 'path-list mono');
        path.nodes.forEach(function (k) { ol.appendChild(element('li', ch.nodes[k].name)); });
        details.appendChild(ol);
      }
    }
  }

  // Each channel's edges by the node they leave and the node they reach, made the first time the
  // channel is looked at, so that a hover or a selection costs the edges of the nodes it touches,
  // not a walk over every edge of the lane for every node.
  function links(ch) {
    if (!ch.out) {
      ch.out = ch.nodes.map(function () { return []; });
      ch.into = ch.nodes.map(function () { return []; });
      ch.edges.forEach(function (e, k) { ch.out[e[0]].push(k); ch.into[e[1]].push(k); });
    }
    return ch;
  }

  // Shortest upgrade path (fewest edges) from bundle i to a head, breadth first in edge order.
  function pathToHead(ch, i) {
    links(ch);
    var parent = [];
    parent[i] = null;
    var queue = [i];
    var found = -1;
    for (var q = 0; q < queue.length; q++) {
      var k = queue[q];
      if (ch.nodes[k].head) { found = k; break; }
      ch.out[k].forEach(function (ei) {
        var to = ch.edges[ei][1];
        if (parent[to] === undefined) { parent[to] = { from: k, edge: ei }; queue.push(to); }
      });
    }
    if (found < 0) {
      var all = queue.slice().sort(function (a, b) { return a - b; });
      return { reachesHead: false, nodes: all, edges: all.filter(function (k) { return parent[k]; }).map(function (k) { return parent[k].edge; }) };
    }
    var nodes = [found];
    var edges = [];
    for (var cur = found; parent[cur]; cur = parent[cur].from) {
      edges.push(parent[cur].edge);
      nodes.push(parent[cur].from);
    }
    nodes.reverse();
    return { reachesHead: true, nodes: nodes, edges: edges };
  }

  function clearMarks() {
    Array.prototype.forEach.call(document.querySelectorAll('.on-path, .selected, .has-path'), function (e) {
      e.classList.remove('on-path', 'selected', 'has-path');
    });
  }

  function select(at) {
    clearMarks();
    var ch = data[at.p].channels[at.c];
    var path = pathToHead(ch, at.i);
    var svg = at.node.closest('svg');
    var prefix = at.lane.id;
    svg.classList.add('has-path');
    path.nodes.forEach(function (k) { document.getElementById(prefix + 'n' + k).classList.add('on-path'); });
    path.edges.forEach(function (k) { document.getElementById(prefix + 'e' + k).classList.add('on-path'); });
    at.node.classList.add('selected');
    selected = { at: at, path: path };
    clearButton.disabled = false;
    describe(at, path);
  }

  function clearSelection() {
    clearMarks();
    selected = null;
    clearButton.disabled = true;
    details.textContent = '';
    details.appendChild(element('p', 'No bundle selected.', 'note'));
  }

  function fillChannels() {
    var p = data[+pickPackage.value];
    while (pickChannel.options.length > 1) pickChannel.remove(1);
    if (!p) return;
    p.channels.forEach(function (c, i) {
      var o = element('option', c.name + (c.default ? ' (default)' : ''));
      o.value = String(i);
      pickChannel.appendChild(o);
    });
  }

  function show() {
    var pi = +pickPackage.value;
    var ci = pickChannel.value;
    packages.forEach(function (s) {
      var mine = +s.getAttribute('data-index') === pi;
      s.hidden = !mine;
      if (!mine) return;
      Array.prototype.forEach.call(s.querySelectorAll('section.lane'), function (l) {
        l.hidden = ci !== '' && l.getAttribute('data-lane') !== pi + '-' + ci;
      });
    });
    // Heads are on the right of their lanes: a lane first shown starts there, where a maintainer
    // looks first (a hidden lane has no width to scroll, so this waits until it is shown).
    Array.prototype.forEach.call(document.querySelectorAll('section.package:not([hidden]) section.lane:not([hidden]) .scroll'), function (s) {
      if (s.getAttribute('data-scrolled')) return;
      s.setAttribute('data-scrolled', '1');
      s.scrollLeft = s.scrollWidth;
    });
    var p = data[pi];
    if (p && history.replaceState) {
      var c = ci === '' ? '' : '/' + encodeURIComponent(p.channels[+ci].name);
      history.replaceState(null, '', '#' + encodeURIComponent(p.name) + c);
    }
  }

  // A link may name the package and channel: #package/channel.
  (function fromHash() {
    var parts = location.hash.slice(1).split('/').map(function (s) {
      try { return decodeURIComponent(s); } catch (e) { return ''; }
    });
    var pi = data.findIndex(function (p) { return p.name === parts[0]; });
    if (pi >= 0) pickPackage.value = String(pi);
    fillChannels();
    if (pi >= 0 && parts.length > 1) {
      var ci = data[pi].channels.findIndex(function (c) { return c.name === parts[1]; });
      if (ci >= 0) pickChannel.value = String(ci);
    }
  })();
  show();

  pickPackage.addEventListener('change', function () { clearSelection(); fillChannels(); show(); });
  pickChannel.addEventListener('change', function () { clearSelection(); show(); });
  clearButton.addEventListener('click', clearSelection);

  // The edges of the bundle under the pointer or focus stand out from the rest.
  var near = [];
  function emphasize(at) {
    near.forEach(function (e) { e.classList.remove('near'); });
    near = [];
    if (!at) return;
    var ch = links(data[at.p].channels[at.c]);
    ch.out[at.i].concat(ch.into[at.i]).forEach(function (k) {
      var el = document.getElementById(at.lane.id + 'e' + k);
      el.classList.add('near');
      near.push(el);
    });
  }

  function preview(ev) {
    var at = where(ev.target);
    if (!at) return;
    emphasize(at);
    describe(at, selected && selected.at.node === at.node ? selected.path : null);
  }
  main.addEventListener('mouseover', preview);
  main.addEventListener('focusin', preview);
  main.addEventListener('mouseout', function (ev) {
    if (!where(ev.target) || (ev.relatedTarget && ev.relatedTarget.closest && ev.relatedTarget.closest('.node') === ev.target.closest('.node'))) return;
    emphasize(null);
    if (selected) describe(selected.at, selected.path);
  });
  main.addEventListener('click', function (ev) {
    var at = where(ev.target);
    if (at) select(at);
  });
  main.addEventListener('keydown', function (ev) {
    var at = where(ev.target);
    if (at && (ev.key === 'Enter' || ev.key === ' ')) {
      ev.preventDefault();
      select(at);
    }
  });
  document.addEventListener('keydown', function (ev) {
    if (ev.key === 'Escape' && selected) clearSelection();
  });
})();
`;
