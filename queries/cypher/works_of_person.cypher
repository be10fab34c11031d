// @name works_of_person
// @description The works a person authored (author position as listed), oldest first, with the co-authors who have pages.
// @param person string -- person page key
// @columns work, title, year, position, coauthors
// @example {"person": "Hao Zhang"}
//
// Neo4j Browser: first run
//   :param person => 'Hao Zhang'
MATCH (author:Person {key: $person})<-[a:AUTHORED_BY]-(work:Page)
OPTIONAL MATCH (work)-[:AUTHORED_BY]->(other:Person) WHERE other <> author
WITH a, work, other ORDER BY other.key
WITH a, work, collect(DISTINCT other.key) AS coauthors
RETURN work.key AS work, work.title AS title, work.year AS year, a.position AS position,
       coauthors
ORDER BY year, work
