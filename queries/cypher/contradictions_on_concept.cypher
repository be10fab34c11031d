// @name contradictions_on_concept
// @description Contradictions on a concept: those that concern the concept page itself ("direct"), and those that concern a source about the concept or involve a claim about it ("related").
// @param concept string -- concept page key, or one of its aliases
// @param status string = null -- "open" or "resolved"; null (the default) for both
// @columns concept, contradiction, via, kind, status, origin, summary, pages
// @example {"concept": "混合精度訓練"}
// @example {"concept": "Mixed Precision Training", "status": "open"}
//
// Neo4j Browser: first run
//   :param concept => '混合精度訓練'
//   :param status => null
MATCH (concept:Concept) WHERE concept.key = $concept OR $concept IN concept.aliases
MATCH (x:Contradiction)
WHERE ($status IS NULL OR x.status = $status)
  AND (EXISTS { (x)-[:CONCERNS]->(concept) }
       OR EXISTS { (x)-[:CONCERNS]->(:Page)-[:ABOUT]->(concept) }
       OR EXISTS { (x)-[:INVOLVES]->(:Claim)-[:CLAIM_ABOUT]->(concept) })
RETURN concept.key AS concept, x.id AS contradiction,
       CASE WHEN EXISTS { (x)-[:CONCERNS]->(concept) } THEN 'direct' ELSE 'related' END AS via,
       x.kind AS kind, x.status AS status, x.origin AS origin, x.summary AS summary,
       COLLECT { MATCH (x)-[:CONCERNS]->(p:Page) RETURN p.key ORDER BY p.key } AS pages
ORDER BY via, contradiction
