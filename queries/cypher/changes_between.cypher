// @name changes_between
// @description What changed between two dates (inclusive), from the log: each entry in order with the pages it created, updated and took as sources, and the contradictions it introduced.
// @param from date -- first day, YYYY-MM-DD
// @param to date -- last day, YYYY-MM-DD
// @columns entry, date, op, title, created, updated, sources, contradictions
// @example {"from": "2026-06-19", "to": "2026-06-22"}
//
// Neo4j Browser: first run
//   :param from => '2026-06-19'
//   :param to => '2026-06-22'
MATCH (e:LogEntry)
WHERE e.date >= date($from) AND e.date <= date($to)
RETURN e.key AS entry, toString(e.date) AS date, e.op AS op, e.title AS title,
       COLLECT { MATCH (e)-[t:TOUCHES {role: 'created'}]->(n)
                 RETURN DISTINCT coalesce(n.key, n.name) AS page ORDER BY page } AS created,
       COLLECT { MATCH (e)-[t:TOUCHES {role: 'updated'}]->(n)
                 RETURN DISTINCT coalesce(n.key, n.name) AS page ORDER BY page } AS updated,
       COLLECT { MATCH (e)-[t:TOUCHES]->(n) WHERE t.role IN ['source', 'summary']
                 RETURN DISTINCT coalesce(n.key, n.name) AS page ORDER BY page } AS sources,
       COLLECT { MATCH (x:Contradiction)-[:INTRODUCED_BY]->(e)
                 RETURN x.id ORDER BY x.id } AS contradictions
ORDER BY e.seq
