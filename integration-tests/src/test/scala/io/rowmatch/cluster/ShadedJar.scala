package io.rowmatch.cluster

import java.nio.file.{Files, Path}
import java.util.jar.JarFile
import scala.jdk.CollectionConverters._
import scala.util.Using

import io.rowmatch.spark.RowmatchBuild

/**
 * The plugin's shaded jar for this build's Spark line (`rowmatch-spark-plugin-spark<line>_2.13-<version>-shaded.jar`),
 * built by `package` in spark-plugin/target, which `mvn verify` runs before this module's tests. `-Drowmatch.shadedJar=FILE` points at another copy.
 * A missing or stale jar (older than the plugin's or the core's compiled classes) is a clear failure, never
 * a silent test of old code.
 */
object ShadedJar {
  val Property = "rowmatch.shadedJar"

  def locate(): Path = {
    val jar = Option(System.getProperty(Property)).filter(_.nonEmpty).map(Path.of(_)).getOrElse(fromBuild())
    require(Files.isRegularFile(jar), s"the Rowmatch shaded jar $jar does not exist")
    Using.resource(new JarFile(jar.toFile)) { j =>
      require(j.getEntry("io/rowmatch/spark/RowmatchExtensions.class") != null,
        s"$jar holds no io/rowmatch/spark/RowmatchExtensions.class")
      require(j.getEntry("io/rowmatch/core/MultiColumnComparator.class") != null,
        s"$jar holds no io/rowmatch/core/MultiColumnComparator.class (the core must be shaded in)")
    }
    jar.toAbsolutePath.normalize()
  }

  private def fromBuild(): Path = {
    val target = moduleDir("spark-plugin").resolve("target")
    val candidates =
      if (Files.isDirectory(target)) Using.resource(Files.list(target)) { s =>
        // This build's Spark line only: the other line's jar may sit next to it (the build names each jar by line).
        s.iterator().asScala.filter(p => p.getFileName.toString == RowmatchBuild.current().shadedJarName()).toList
      } else Nil
    candidates match {
      case Nil => throw new IllegalStateException(s"No ${RowmatchBuild.current().shadedJarName()} in $target." +
        " The cluster tests ship the plugin to executors as that jar: build it first, e.g. `mvn -B -ntp verify` (package runs before this" +
        " module's tests) or `mvn -B -ntp -pl spark-plugin -am package -DskipTests`, or pass -D" + Property + "=FILE")
      case jar :: Nil =>
        val built = Files.getLastModifiedTime(jar).toMillis
        for (module <- Seq("spark-plugin", "core")) {
          newestClass(moduleDir(module).resolve("target").resolve("classes")).foreach { case (file, time) =>
            if (time > built) throw new IllegalStateException(s"$jar is older than $file: the shaded jar is stale;" +
              " rebuild it with `mvn -B -ntp -pl spark-plugin -am package -DskipTests` (or run `mvn verify`)")
          }
        }
        jar
      case many => throw new IllegalStateException(s"Several shaded jars in $target: ${many.mkString(", ")};" +
        s" remove the old ones or pass -D$Property=FILE")
    }
  }

  private def newestClass(dir: Path): Option[(Path, Long)] =
    if (!Files.isDirectory(dir)) None
    else Using.resource(Files.walk(dir)) { s =>
      s.iterator().asScala.filter(p => p.toString.endsWith(".class"))
        .map(p => p -> Files.getLastModifiedTime(p).toMillis).maxByOption(_._2)
    }

  /** A sibling module's directory: tests run in integration-tests/, the modules sit next to it. */
  def moduleDir(name: String): Path = {
    val here = Path.of("").toAbsolutePath
    Seq(here.resolveSibling(name), here.resolve(name)).find(Files.isDirectory(_))
      .getOrElse(throw new IllegalStateException(s"Cannot find the module $name next to $here"))
  }
}
