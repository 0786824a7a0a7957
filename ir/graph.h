// Directed graphs, built with Boost.Graph: the one cycle search of cake
// (strongly connected components; the simulator's deadlock report and the
// handoff graph both use it) and the schedule's handoff graph with its DOT
// output (`cake check --graph-dot FILE`, docs/traces.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/schedule.h"

namespace cake::ir {

using EdgeList = std::vector<std::pair<int, int>>;

// The strongly connected components (boost::strong_components): the
// component of each vertex, and whether the vertex is on a cycle.
struct Components {
  std::vector<int> of;
  std::vector<bool> cyclic;
};
Components strongComponents(int n, const EdgeList& edges);

// For each of the n vertices: is it on a cycle of the graph (in a strongly
// connected component of more than one vertex, or with an edge to itself)?
std::vector<bool> onCycle(int n, const EdgeList& edges);

// The handoff graph of schedules: roles, barriers and named barriers as
// nodes; an edge from a role to a barrier it arrives on (arrive, expect_tx,
// a TMA load's landing, an MMA commit's completion, bar_arrive, sync) and
// from a barrier to a role that waits on it (wait, sync): producer ->
// barrier -> consumer. A deadlock finding's blocked waits mark their edges
// (blocked), and the wait-for cycles among them (cycle): the blocked roles
// and the barriers they wait on, with the edges by which a blocked role
// would have arrived.
struct HandoffGraph {
  struct Node {
    enum class Kind { Role, Barrier, NamedBarrier };
    Kind kind = Kind::Role;
    std::string name;      // as written in the schedule
    std::string schedule;  // its schedule
    bool blocked = false;  // a role stuck at the end of a deadlock trace
    bool cycle = false;    // on a wait-for cycle of a deadlock
  };
  struct Edge {
    int from = 0, to = 0;
    std::string kind;      // arrive, expect_tx, tma, mma_commit, bar_arrive, sync, wait
    bool blocked = false;  // a wait that never passes
    bool cycle = false;    // on a wait-for cycle
  };
  std::vector<Node> nodes;
  std::vector<Edge> edges;
};

// Adds schedule `s` with the blocked waits of its findings (Finding::blocked).
void addToHandoffGraph(HandoffGraph& g, const Schedule& s, const std::vector<Finding>& findings);

// Graphviz DOT (boost::write_graphviz): roles as boxes, barriers as
// ellipses, named barriers as diamonds; node ids are "schedule.name" when
// the graph holds more than one schedule, else the name; blocked edges
// red and dashed, cycle edges and nodes red and bold.
std::string handoffGraphDot(const HandoffGraph& g);

}  // namespace cake::ir
