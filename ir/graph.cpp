#include "ir/graph.h"

#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graphviz.hpp>
#include <boost/graph/strong_components.hpp>

namespace cake::ir {

Components strongComponents(int n, const EdgeList& edges) {
  using G = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  G g(n);
  Components c;
  c.cyclic.assign(n, false);
  for (auto [u, v] : edges) {
    boost::add_edge(u, v, g);
    if (u == v) c.cyclic[u] = true;
  }
  c.of.assign(n, 0);
  int count = n == 0 ? 0
                    : boost::strong_components(
                          g, boost::make_iterator_property_map(c.of.begin(), boost::get(boost::vertex_index, g)));
  std::vector<int> size(count, 0);
  for (int x : c.of) ++size[x];
  for (int v = 0; v < n; ++v) c.cyclic[v] = c.cyclic[v] || size[c.of[v]] > 1;
  return c;
}

std::vector<bool> onCycle(int n, const EdgeList& edges) { return strongComponents(n, edges).cyclic; }

namespace {

using Node = HandoffGraph::Node;
using Edge = HandoffGraph::Edge;

class Builder {
 public:
  Builder(HandoffGraph& g, const Schedule& s)
      : g_(g), s_(s), first_node_(static_cast<int>(g.nodes.size())), first_edge_(g.edges.size()) {}

  void build(const std::vector<Finding>& findings) {
    for (const Role& r : s_.roles) node(Node::Kind::Role, r.name);
    for (const Barrier& b : s_.barriers) node(Node::Kind::Barrier, b.name);
    for (const NamedBarrier& b : s_.named_barriers) node(Node::Kind::NamedBarrier, b.name);
    for (const RoleBody& body : s_.bodies) walk(body.role, body.body);
    markDeadlocks(findings);
  }

 private:
  HandoffGraph& g_;
  const Schedule& s_;
  const int first_node_;
  const size_t first_edge_;
  std::map<std::pair<Node::Kind, std::string>, int> ids_;
  std::set<std::tuple<int, int, std::string>> seen_;

  int node(Node::Kind k, const std::string& name) {
    auto [it, fresh] = ids_.try_emplace({k, name}, static_cast<int>(g_.nodes.size()));
    if (fresh) g_.nodes.push_back({k, name, s_.name, false, false});
    return it->second;
  }
  int role(int r) { return node(Node::Kind::Role, s_.roles[r].name); }
  int barrier(int b) { return node(Node::Kind::Barrier, s_.barriers[b].name); }
  int named(int b) { return node(Node::Kind::NamedBarrier, s_.named_barriers[b].name); }
  void edge(int from, int to, const std::string& kind) {
    if (seen_.insert({from, to, kind}).second) g_.edges.push_back({from, to, kind, false, false});
  }

  void walk(int r, const Block& block) {
    for (const Stmt& st : block) {
      walk(r, st.body);
      walk(r, st.orelse);
      if (st.kind != Stmt::Kind::Op) continue;
      const Op& op = st.op;
      switch (op.kind) {
        case OpKind::Arrive: edge(role(r), barrier(op.barrier), "arrive"); break;
        case OpKind::ExpectTx: edge(role(r), barrier(op.barrier), "expect_tx"); break;
        case OpKind::TmaLoad:
          if (op.barrier >= 0) edge(role(r), barrier(op.barrier), "tma");
          break;
        case OpKind::MmaCommit:
          if (op.barrier >= 0) edge(role(r), barrier(op.barrier), "mma_commit");
          break;
        case OpKind::Wait: edge(barrier(op.barrier), role(r), "wait"); break;
        case OpKind::BarArrive:
          if (op.named_barrier >= 0) edge(role(r), named(op.named_barrier), "bar_arrive");
          break;
        case OpKind::Sync:
          if (op.named_barrier >= 0) {
            edge(role(r), named(op.named_barrier), "sync");
            edge(named(op.named_barrier), role(r), "sync");
          }
          break;
        default: break;
      }
    }
  }

  // The blocked waits of the findings, and the wait-for cycles among them.
  void markDeadlocks(const std::vector<Finding>& findings) {
    std::set<int> roles, barriers;
    for (const Finding& f : findings)
      for (const TraceStep& t : f.blocked) {
        auto r = ids_.find({Node::Kind::Role, t.role});
        Node::Kind bk = t.kind == StepKind::NamedBlock ? Node::Kind::NamedBarrier : Node::Kind::Barrier;
        auto b = ids_.find({bk, t.barrier});
        if (r == ids_.end() || b == ids_.end()) continue;
        g_.nodes[r->second].blocked = true;
        roles.insert(r->second);
        barriers.insert(b->second);
        for (Edge& e : g_.edges)
          if (e.from == b->second && e.to == r->second) e.blocked = true;
      }
    // the wait-for subgraph: blocked waits, and arrivals a blocked role would have made
    std::vector<int> sub;
    EdgeList es;
    for (size_t i = first_edge_; i < g_.edges.size(); ++i) {
      const Edge& e = g_.edges[i];
      if (e.blocked || (roles.count(e.from) && barriers.count(e.to))) {
        sub.push_back(static_cast<int>(i));
        es.push_back({e.from, e.to});
      }
    }
    Components c = strongComponents(static_cast<int>(g_.nodes.size()), es);
    for (int i : sub) {
      Edge& e = g_.edges[i];
      e.cycle = c.cyclic[e.from] && c.of[e.from] == c.of[e.to];
    }
    for (int v = first_node_; v < static_cast<int>(g_.nodes.size()); ++v) g_.nodes[v].cycle = c.cyclic[v];
  }
};

std::string dotQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

void addToHandoffGraph(HandoffGraph& g, const Schedule& s, const std::vector<Finding>& findings) {
  Builder(g, s).build(findings);
}

std::string handoffGraphDot(const HandoffGraph& hg) {
  struct VP {
    std::string id;
  };
  using G = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, VP, boost::property<boost::edge_index_t, int>>;
  std::set<std::string> schedules;
  for (const Node& n : hg.nodes) schedules.insert(n.schedule);
  const bool prefix = schedules.size() > 1;
  G g(hg.nodes.size());
  for (size_t v = 0; v < hg.nodes.size(); ++v)
    g[v].id = prefix ? hg.nodes[v].schedule + "." + hg.nodes[v].name : hg.nodes[v].name;
  for (size_t i = 0; i < hg.edges.size(); ++i)
    boost::add_edge(hg.edges[i].from, hg.edges[i].to, static_cast<int>(i), g);

  auto vertexWriter = [&](std::ostream& os, G::vertex_descriptor v) {
    const Node& n = hg.nodes[v];
    const char* shape = n.kind == Node::Kind::Role ? "box" : n.kind == Node::Kind::Barrier ? "ellipse" : "diamond";
    const char* kind = n.kind == Node::Kind::Role ? "role" : n.kind == Node::Kind::Barrier ? "barrier" : "named_barrier";
    os << "[label=" << dotQuote(n.name) << ", shape=" << shape << ", cake_kind=" << kind;
    if (n.cycle) os << ", color=red, fontcolor=red, penwidth=2, cake_cycle=true";
    else if (n.blocked) os << ", color=red, fontcolor=red";
    if (n.blocked) os << ", cake_blocked=true";
    os << "]";
  };
  auto edgeWriter = [&](std::ostream& os, G::edge_descriptor e) {
    const Edge& he = hg.edges[boost::get(boost::edge_index, g, e)];
    os << "[label=" << dotQuote(he.kind);
    if (he.cycle) os << ", color=red, penwidth=2, cake_cycle=true";
    if (he.blocked) os << (he.cycle ? "" : ", color=red") << ", style=dashed, cake_blocked=true";
    os << "]";
  };
  auto graphWriter = [&](std::ostream& os) {
    os << "label=\"handoff graph: producer -> barrier -> consumer; red: a deadlock's blocked waits and wait-for "
          "cycles\";\nrankdir=LR;\n";
  };
  std::ostringstream os;
  // GCC 12 at -O3 warns of an edge iterator inside Boost's write_graphviz
  // "maybe uninitialized" (an optional<> it tests before use): not ours.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
  boost::write_graphviz(os, g, vertexWriter, edgeWriter, graphWriter, boost::get(&VP::id, g));
#pragma GCC diagnostic pop
  return os.str();
}

}  // namespace cake::ir
