// @name descendants
// @description What builds on a work: every lineage assertion from the works that descend from it, down to the newest, with provenance.
// @param key string -- page key of the work (its file stem)
// @columns child, parent, relation, mechanism, asserted_on, line, introduced_by
// @example {"key": "@2019__NeurIPS__GPipe Easy Scaling with Micro-Batch Pipeline Parallelism"}
//
// Neo4j Browser: first run
//   :param key => '@2019__NeurIPS__GPipe Easy Scaling with Micro-Batch Pipeline Parallelism'
MATCH (work:Page {key: $key})
OPTIONAL MATCH (work)<-[:BUILDS_ON|EXTENDS|SUPERSEDES|IMPROVES_ON|BASED_ON*1..20]-(descendant:Page)
WITH work, collect(DISTINCT descendant) AS descendants
UNWIND [work] + descendants AS parent
MATCH (child:Page)-[r:BUILDS_ON|EXTENDS|SUPERSEDES|IMPROVES_ON|BASED_ON]->(parent)
RETURN child.key AS child, parent.key AS parent, type(r) AS relation, r.mechanism AS mechanism,
       r.page AS asserted_on, r.line AS line, r.introduced_by AS introduced_by
ORDER BY parent, child, mechanism, asserted_on, line
