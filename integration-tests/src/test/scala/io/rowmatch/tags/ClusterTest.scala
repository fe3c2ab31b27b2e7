package io.rowmatch.tags

import org.scalatest.Tag

/**
 * Tests that start a Spark standalone cluster (a Master and two Workers as separate JVMs on 127.0.0.1).
 * Run them alone with `-DtagsToInclude=io.rowmatch.tags.ClusterTest`, leave them out with
 * `-DtagsToExclude=io.rowmatch.tags.ClusterTest`.
 */
object ClusterTest extends Tag("io.rowmatch.tags.ClusterTest")
