package io.rowmatch.cluster

import java.io.File
import java.nio.file.{Files, Path}
import java.util.jar.JarFile
import scala.util.Using

/**
 * A SPARK_HOME for the test cluster, laid out under target/: Spark's launcher (WorkerCommandBuilder, through
 * AbstractCommandBuilder.buildClassPath) builds each executor's class path as `SPARK_HOME/jars/` + `*`, and the
 * Master and Workers run from the same folder. `jars/` holds links to the jars of this JVM's class path (the
 * Maven jars of Spark, Scala, Arrow, ...) EXCEPT any jar holding `io/rowmatch/` classes, and no class
 * directories: executors can only get Rowmatch from the jar the application ships (`spark.jars`).
 */
final case class SparkHomeLayout(home: Path, jars: Path, conf: Path, linked: Seq[Path], leftOut: Seq[String])

object SparkHomeLayout {
  def create(home: Path): SparkHomeLayout = {
    deleteRecursively(home)
    val jars = Files.createDirectories(home.resolve("jars"))
    val conf = Files.createDirectories(home.resolve("conf"))
    val entries = System.getProperty("java.class.path").split(File.pathSeparator).toSeq.filter(_.nonEmpty)
    val (keep, drop) = entries.map(Path.of(_).toAbsolutePath).partition(p =>
      p.getFileName.toString.endsWith(".jar") && Files.isRegularFile(p) && !holdsRowmatch(p))
    val linked = keep.distinct.zipWithIndex.map { case (jar, i) =>
      // Prefixed: two jars of the same file name from different groups must not clash.
      val link = jars.resolve(f"$i%03d-${jar.getFileName}")
      Files.createSymbolicLink(link, jar)
      link
    }
    Files.writeString(conf.resolve("log4j2.properties"), Log4jConfig)
    SparkHomeLayout(home, jars, conf, linked, drop.map(_.toString))
  }

  private def holdsRowmatch(jar: Path): Boolean =
    Using.resource(new JarFile(jar.toFile)) { j =>
      j.getEntry("io/rowmatch/") != null || j.stream().anyMatch(e => e.getName.startsWith("io/rowmatch/"))
    }

  /** INFO for Spark's deploy and executor classes (the tests read a few of their lines), WARN elsewhere. */
  private val Log4jConfig =
    """rootLogger.level = warn
      |rootLogger.appenderRef.stderr.ref = console
      |appender.console.type = Console
      |appender.console.name = console
      |appender.console.target = SYSTEM_ERR
      |appender.console.layout.type = PatternLayout
      |appender.console.layout.pattern = %d{HH:mm:ss.SSS} %p %c{1}: %m%n
      |logger.deploy.name = org.apache.spark.deploy
      |logger.deploy.level = info
      |logger.executor.name = org.apache.spark.executor
      |logger.executor.level = info
      |logger.rowmatch.name = io.rowmatch
      |logger.rowmatch.level = info
      |""".stripMargin

  def deleteRecursively(path: Path): Unit =
    if (Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      if (Files.isDirectory(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        Using.resource(Files.list(path)) { s => s.toList.forEach(p => deleteRecursively(p)) }
      }
      Files.delete(path)
    }
}
