// @name lineage
// @description What a work builds on: every lineage assertion (child -> parent) from the work up to its oldest ancestors, with provenance. COMPARES_WITH is not lineage and is left out.
// @param key string -- page key of the work (its file stem)
// @columns child, parent, relation, mechanism, asserted_on, line, introduced_by
// @example {"key": "@2025__arXiv__FFTrainer Fast Failover in Large Language Model Training with Almost Free State Management"}
//
// Neo4j Browser: first run
//   :param key => '@2025__arXiv__FFTrainer Fast Failover in Large Language Model Training with Almost Free State Management'
// Ancestors are found breadth-first (DISTINCT end nodes), so cycles and self-loops are safe.
MATCH (work:Page {key: $key})
OPTIONAL MATCH (work)-[:BUILDS_ON|EXTENDS|SUPERSEDES|IMPROVES_ON|BASED_ON*1..20]->(ancestor:Page)
WITH work, collect(DISTINCT ancestor) AS ancestors
UNWIND [work] + ancestors AS child
MATCH (child)-[r:BUILDS_ON|EXTENDS|SUPERSEDES|IMPROVES_ON|BASED_ON]->(parent:Page)
RETURN child.key AS child, parent.key AS parent, type(r) AS relation, r.mechanism AS mechanism,
       r.page AS asserted_on, r.line AS line, r.introduced_by AS introduced_by
ORDER BY child, parent, mechanism, asserted_on, line
