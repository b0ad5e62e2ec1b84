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
        : 'No upgrade path from this bundle reaches a channel head; ' + steps + ' bundle' + (steps === 1 ? '' : 's') + ' can be reached from it.';
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

  // Zoom and pan. Each lane is a window onto its picture. The picture keeps its size in the page and
  // is scaled by a CSS transform, which the window's scrolling area follows; the window scrolls
  // over it. Moving is the browser's own scrolling, which draws only what comes into sight however
  // long the lane, and nothing is laid out again at any step (a layout of thousands of bundles
  // takes the browser a good part of a second). A view is { s: scale, x, y: the lane point at the
  // window's top left }; the lane's own box (its viewBox) is cx, cy, cw, ch. The window says where
  // it looks in data-view ("x y width height", lane units) and data-scale.
  var MIN_ZOOM = 0.5;
  var MAX_ZOOM = 4;
  var STEP = 1.25;
  var views = [];
  var justDragged = false;

  function round(n) {
    return Math.round(n * 100) / 100;
  }

  function boxOf(node) {
    var m = /translate\(([-\d.]+),([-\d.]+)\)/.exec(node.getAttribute('transform') || '');
    var r = node.querySelector('rect.box');
    return { x: m ? +m[1] : 0, y: m ? +m[2] : 0, w: r ? +r.getAttribute('width') : 0, h: r ? +r.getAttribute('height') : 0 };
  }

  // The window's inside, measured when the lane is set up and when the page is resized, never in
  // between: reading a size makes the browser lay out a lane of thousands of bundles again.
  function windowSize(v) {
    return v.size;
  }

  function measure(v) {
    v.size = { w: v.box.clientWidth || 1, h: v.box.clientHeight || 1 };

  }

  function fitScale(v) {
    var ws = windowSize(v);
    return Math.min(ws.w / v.cw, ws.h / v.ch, 1);
  }

  // Keeps the picture in the window: a lane narrower than the window sits at its left, one lower
  // than it in its middle; a larger one cannot be moved past its ends.
  function clamp(v) {
    var ws = windowSize(v);
    v.s = Math.min(MAX_ZOOM, Math.max(Math.min(MIN_ZOOM, fitScale(v)), v.s));
    var vw = ws.w / v.s;
    var vh = ws.h / v.s;
    v.x = v.cw <= vw ? v.cx : Math.min(Math.max(v.x, v.cx), v.cx + v.cw - vw);
    v.y = v.ch <= vh ? v.cy - (vh - v.ch) / 2 : Math.min(Math.max(v.y, v.cy), v.cy + v.ch - vh);
  }

  function apply(v) {
    clamp(v);
    var ws = windowSize(v);
    var vw = ws.w / v.s;
    var vh = ws.h / v.s;
    // A lane smaller than the window is moved into place by the transform (a scroll position is
    // never negative).
    var dx = (v.x - v.cx) * v.s;
    var dy = (v.y - v.cy) * v.s;
    var tx = round(Math.max(-dx, 0));
    var ty = round(Math.max(-dy, 0));
    // None at actual size in place, as the page was laid out: a new transform on the picture makes
    // the browser measure its text again.
    var transform = tx === 0 && ty === 0 && v.s === 1 ? '' : 'translate(' + tx + 'px,' + ty + 'px) scale(' + v.s + ')';
    if (v.svg.style.transform !== transform) v.svg.style.transform = transform;
    v.drawnAt = v.s;
    v.scrolling = true;
    v.box.scrollLeft = Math.max(dx, 0);
    v.box.scrollTop = Math.max(dy, 0);
    v.scrolling = false;
    v.box.setAttribute('data-view', [v.x, v.y, vw, vh].map(round).join(' '));
    v.box.setAttribute('data-scale', String(Math.round(v.s * 1000) / 1000));
    v.level.textContent = Math.round(v.s * 100) + '%';
    if (v.marker) {
      // Hidden while the whole lane is in the window: there is nothing to find.
      v.overview.style.display = vw >= v.cw && vh >= v.ch ? 'none' : '';
      // The marker keeps a few pixels of size in the overview, however small the window is there.
      var least = 4 / (Math.min(v.ovSize.w / v.cw, v.ovSize.h / v.ch) || 1);
      var mw = Math.max(Math.min(vw, v.cw), least);
      var mh = Math.max(Math.min(vh, v.ch), least);
      var mx = Math.max(v.cx, Math.min(v.x, v.cx + v.cw - mw));
      var my = Math.max(v.cy, Math.min(v.y, v.cy + v.ch - mh));
      [['x', mx], ['y', my], ['width', mw], ['height', mh]].forEach(function (a) {
        v.marker.setAttribute(a[0], String(round(a[1])));
      });
    }
  }

  // Zooms by factor keeping the lane point under (px, py), in window pixels, where it is.
  function zoomAt(v, factor, px, py) {
    var lx = v.x + px / v.s;
    var ly = v.y + py / v.s;
    v.s = v.s * factor;
    clamp(v);
    v.x = lx - px / v.s;
    v.y = ly - py / v.s;
    apply(v);
  }

  function zoomCentre(v, factor) {
    var ws = windowSize(v);
    zoomAt(v, factor, ws.w / 2, ws.h / 2);
  }

  function fit(v) {
    v.s = fitScale(v);
    v.x = v.cx;
    v.y = v.cy;
    apply(v);
  }

  function actualSize(v) {
    zoomCentre(v, 1 / v.s);
  }

  function panBy(v, dx, dy) {
    v.x += dx / v.s;
    v.y += dy / v.s;
    apply(v);
  }

  // Centres the window on a lane point.
  function centreOn(v, lx, ly) {
    var ws = windowSize(v);
    v.x = lx - ws.w / v.s / 2;
    v.y = ly - ws.h / v.s / 2;
    apply(v);
  }

  function showNode(v, node) {
    var b = boxOf(node);
    var ws = windowSize(v);
    var vw = ws.w / v.s;
    var vh = ws.h / v.s;
    if (b.x >= v.x && b.x + b.w <= v.x + vw && b.y >= v.y && b.y + b.h <= v.y + vh) return;
    centreOn(v, b.x + b.w / 2, b.y + b.h / 2);
  }

  // The head at the right of the window, half-way down it.
  function toHead(v) {
    var ws = windowSize(v);
    v.x = v.head.x + v.head.w + 24 / v.s - ws.w / v.s;
    v.y = v.head.y + v.head.h / 2 - ws.h / v.s / 2;
    apply(v);
  }

  var SVG_NS = 'http://www.w3.org/2000/svg';
  function svgElement(tag, attrs) {
    var e = document.createElementNS(SVG_NS, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    return e;
  }

  // The overview: every bundle of the lane as a small box (heads and problems in their colours),
  // the replaces line under them, and a marker where the window is. One path per kind of box, so a
  // lane of 10,000 bundles costs three elements here.
  function makeOverview(v) {
    var paths = { plain: [], head: [], problem: [] };
    Array.prototype.forEach.call(v.svg.querySelectorAll('g.node'), function (n) {
      var b = boxOf(n);
      var kind = n.classList.contains('problem') ? 'problem' : n.classList.contains('head') ? 'head' : 'plain';
      paths[kind].push('M' + b.x + ',' + b.y + 'h' + b.w + 'v' + b.h + 'h' + -b.w + 'z');
    });
    var ov = svgElement('svg', {
      class: 'opm-graph overview',
      viewBox: [v.cx, v.cy, v.cw, v.ch].join(' '),
      preserveAspectRatio: 'xMidYMid meet',
      'aria-hidden': 'true',
    });
    Object.keys(paths).forEach(function (k) {
      if (paths[k].length > 0) ov.appendChild(svgElement('path', { class: 'overview-node ' + k, d: paths[k].join('') }));
    });
    v.marker = svgElement('rect', { class: 'overview-view', 'vector-effect': 'non-scaling-stroke' });
    ov.appendChild(v.marker);
    var pressed = false;
    function jump(ev) {
      var m = ov.getScreenCTM();
      if (!m) return;
      var p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
      centreOn(v, p.x, p.y);
    }
    ov.addEventListener('pointerdown', function (ev) {
      if (ev.button !== 0) return;
      // Not a drag of the window under it.
      ev.stopPropagation();
      pressed = true;
      ov.setPointerCapture(ev.pointerId);
      jump(ev);
    });
    ov.addEventListener('pointermove', function (ev) { if (pressed) jump(ev); });
    ov.addEventListener('pointerup', function () { pressed = false; });
    ov.addEventListener('pointercancel', function () { pressed = false; });
    return ov;
  }

  function setUpView(box) {
    if (box.getAttribute('data-view')) return;
    var svg = box.querySelector('svg.lane-svg');
    if (!svg) return;
    // The window's look and size come from the style sheet under the page's 'js' class, set in the
    // head before the lanes are read: nothing here changes the style of a lane, so the browser
    // neither styles nor lays out its thousands of bundles again, and reading the size is free.
    var width = box.clientWidth;
    var height = box.clientHeight;
    box.setAttribute('data-view', String(views.length));
    var vb = svg.getAttribute('viewBox').split(' ').map(Number);
    var v = { box: box, svg: svg, cx: vb[0], cy: vb[1], cw: vb[2], ch: vb[3], s: 1, x: 0, y: 0, marker: null, overview: null };
    views.push(v);
    box.tabIndex = 0;
    // The markup has the window (.scroll) in a frame that holds what stays in place over it (the
    // overview): moving an svg of thousands of bundles in the document would lay it out again.
    v.frame = box.parentNode;
    var channel = box.closest('section.lane').getAttribute('data-channel');
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', 'channel ' + channel + ': drag or use the arrow keys to move, + and - to zoom, 0 to fit');
    var bar = v.frame.previousElementSibling;
    var actions = { out: function () { zoomCentre(v, 1 / STEP); }, in: function () { zoomCentre(v, STEP); }, fit: function () { fit(v); }, actual: function () { actualSize(v); } };
    bar.addEventListener('click', function (ev) {
      var b = ev.target.closest('button[data-zoom]');
      if (b) actions[b.getAttribute('data-zoom')]();
    });
    v.level = bar.querySelector('.zoom-level');
    // The window starts at actual size at the channel head (the newest, when there are several),
    // where a maintainer looks first: at the end of the lane, at the bottom right of a wrapped one.
    v.size = { w: Math.max(width, 1), h: Math.max(height, 1) };
    var ws = v.size;
    var heads = svg.querySelectorAll('g.node.head');
    v.head = heads.length > 0 ? boxOf(heads[heads.length - 1]) : { x: v.cx + v.cw, y: v.cy + v.ch, w: 0, h: 0 };
    toHead(v);
    // A lane that does not fit its window gets an overview in the window's top right corner, of
    // the lane's shape (a wrapped lane's rows show as rows).
    if (v.cw > ws.w || v.ch > ws.h) {
      v.overview = makeOverview(v);
      var ow = Math.min(300, ws.w * 0.3);
      var oh = Math.max(24, Math.min(160, ws.h * 0.4, ow * v.ch / v.cw));
      ow = Math.round(Math.min(ow, oh * v.cw / v.ch));
      oh = Math.round(oh);
      v.overview.style.width = ow + 'px';
      v.overview.style.height = oh + 'px';
      // Inside its padding and border.
      v.ovSize = { w: ow - 10 || 1, h: oh - 10 || 1 };
      v.frame.appendChild(v.overview);
    }
    apply(v);

    box.addEventListener('wheel', function (ev) {
      var r = box.getBoundingClientRect();
      if (ev.ctrlKey || ev.metaKey) {
        ev.preventDefault();
        var d = ev.deltaMode === 1 ? ev.deltaY * 16 : ev.deltaY;
        zoomAt(v, Math.exp(-Math.max(-300, Math.min(300, d)) * 0.002), ev.clientX - r.left, ev.clientY - r.top);
      } else if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
        // Sideways (or with Shift): along the lane. A plain wheel scrolls the page, as it did.
        ev.preventDefault();
        panBy(v, ev.shiftKey && ev.deltaX === 0 ? ev.deltaY : ev.deltaX, 0);
      }
    }, { passive: false });

    // Dragging moves the picture; the pointer is captured only once it has moved, so that a click
    // on a bundle still selects it.
    var drag = null;
    box.addEventListener('pointerdown', function (ev) {
      if (ev.button !== 0) return;
      drag = { id: ev.pointerId, sx: ev.clientX, sy: ev.clientY, x: v.x, y: v.y, moved: false };
    });
    box.addEventListener('pointermove', function (ev) {
      if (!drag || ev.pointerId !== drag.id) return;
      var dx = ev.clientX - drag.sx;
      var dy = ev.clientY - drag.sy;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
      if (!drag.moved) {
        drag.moved = true;
        box.setPointerCapture(ev.pointerId);
      }
      v.x = drag.x - dx / v.s;
      v.y = drag.y - dy / v.s;
      apply(v);
    });
    function endDrag() {
      if (drag && drag.moved) {
        justDragged = true;
        setTimeout(function () { justDragged = false; }, 0);
      }
      drag = null;
    }
    box.addEventListener('pointerup', endDrag);
    box.addEventListener('pointercancel', endDrag);

    box.addEventListener('keydown', function (ev) {
      if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
      var ws = windowSize(v);
      var step = ev.shiftKey ? 0.5 : 0.125;
      var done = true;
      switch (ev.key) {
        case '+': case '=': zoomCentre(v, STEP); break;
        case '-': case '_': zoomCentre(v, 1 / STEP); break;
        case '0': fit(v); break;
        case '1': actualSize(v); break;
        case 'ArrowLeft': panBy(v, -ws.w * step, 0); break;
        case 'ArrowRight': panBy(v, ws.w * step, 0); break;
        case 'ArrowUp': panBy(v, 0, -ws.h * step); break;
        case 'ArrowDown': panBy(v, 0, ws.h * step); break;
        case 'Home': v.x = v.cx; v.y = v.cy; apply(v); break;
        case 'End': toHead(v); break;
        default: done = false;
      }
      if (done) ev.preventDefault();
    });
    // A bundle reached with Tab is brought into the window.
    box.addEventListener('focusin', function (ev) {
      var node = ev.target.closest && ev.target.closest('.node');
      if (node) showNode(v, node);
    });
    // Focus moved into the picture must not scroll the window's own box: the view does the moving.
    // The browser scrolls the window too (to show a bundle that takes focus): the view follows.
    box.addEventListener('scroll', function () {
      if (v.scrolling || v.s !== v.drawnAt) return;
      var dx = Math.max((v.x - v.cx) * v.s, 0);
      var dy = Math.max((v.y - v.cy) * v.s, 0);
      if (Math.abs(box.scrollLeft - dx) < 1 && Math.abs(box.scrollTop - dy) < 1) return;
      v.x = v.cx + box.scrollLeft / v.s;
      v.y = v.cy + box.scrollTop / v.s;
      apply(v);
    });
  }

  window.addEventListener('resize', function () {
    views.forEach(measure);
    views.forEach(apply);
  });
  // Printed, every lane is whole again, as without the script.
  window.addEventListener('beforeprint', function () {
    views.forEach(function (v) {
      v.svg.style.transform = '';
      v.drawnAt = null;
    });
  });
  window.addEventListener('afterprint', function () {
    views.forEach(function (v) {
      apply(v);
    });
  });

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
    // A lane becomes zoomable when it is first shown (a hidden lane has no size to fit).
    Array.prototype.forEach.call(document.querySelectorAll('section.package:not([hidden]) section.lane:not([hidden]) .scroll'), setUpView);
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
    // The click that ends a drag selects nothing.
    if (justDragged) return;
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
