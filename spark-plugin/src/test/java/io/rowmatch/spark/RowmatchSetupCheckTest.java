package io.rowmatch.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

class RowmatchSetupCheckTest {
  private static final ClassLoader LOADER = RowmatchSetupCheckTest.class.getClassLoader();
  private static final String ENTRY = "io.rowmatch.spark.RowmatchExtensions";
  private static final Path DRIVER_JAR = Path.of("/opt/app/lib/rowmatch-spark-plugin-spark4.1_2.13-0.1.0-shaded.jar");

  private static SparkConf conf(String master, String extensions) {
    SparkConf conf = new SparkConf(false).set("spark.master", master);
    return extensions == null ? conf : conf.set("spark.sql.extensions", extensions);
  }

  @Test
  void rightSettingsInLocalModeAreFine() {
    assertEquals(List.of(), RowmatchSetupCheck.problems(conf("local[2]", ENTRY), LOADER, DRIVER_JAR));
  }

  @Test
  void withoutRowmatchInTheSettingsNothingIsSaid() {
    assertEquals(List.of(), RowmatchSetupCheck.problems(conf("spark://h:7077", null), LOADER, DRIVER_JAR));
    assertEquals(List.of(), RowmatchSetupCheck.problems(conf("spark://h:7077", "com.example.Other"), LOADER,
        DRIVER_JAR));
  }

  @Test
  void misspelledExtensionIsAnErrorNamingTheEntryPoint() {
    List<RowmatchSetupCheck.Problem> found = RowmatchSetupCheck.problems(
        conf("local[2]", "com.example.Other, io.rowmatch.spark.RowmatchExtension"), LOADER, DRIVER_JAR);
    assertEquals(1, found.size(), found.toString());
    assertTrue(found.get(0).certain());
    String message = found.get(0).message();
    assertTrue(message.contains("'io.rowmatch.spark.RowmatchExtension'"), message);
    assertTrue(message.contains("Rowmatch is OFF"), message);
    assertTrue(message.contains("spark.sql.extensions=" + ENTRY), message);
  }

  @Test
  void aRowmatchClassThatIsNotTheEntryPointIsAnError() {
    List<RowmatchSetupCheck.Problem> found = RowmatchSetupCheck.problems(
        conf("local[2]", "io.rowmatch.spark.rules.ReplaceOperators"), LOADER, DRIVER_JAR);
    assertEquals(1, found.size(), found.toString());
  }

  @Test
  void clusterWithoutShippedJarIsAWarningNamingJars() {
    List<RowmatchSetupCheck.Problem> found =
        RowmatchSetupCheck.problems(conf("spark://h:7077", ENTRY), LOADER, DRIVER_JAR);
    assertEquals(1, found.size(), found.toString());
    assertFalse(found.get(0).certain());
    String message = found.get(0).message();
    assertTrue(message.contains("spark.jars") && message.contains("--jars"), message);
    assertTrue(message.contains(DRIVER_JAR.toString()), message);
    assertTrue(message.contains("ClassNotFoundException"), message);
  }

  @Test
  void clusterWithTheJarShippedOrOnTheExecutorClassPathIsFine() {
    assertEquals(List.of(), RowmatchSetupCheck.problems(
        conf("spark://h:7077", ENTRY).set("spark.jars", "/x/other.jar,file:/y/rowmatch-spark-0.2.0-shaded.jar"),
        LOADER, DRIVER_JAR));
    assertEquals(List.of(), RowmatchSetupCheck.problems(
        conf("yarn", ENTRY).set("spark.jars", "hdfs://nn/apps/renamed.jar"), LOADER,
        Path.of("/tmp/spark-123/userFiles/renamed.jar")));
    assertEquals(List.of(), RowmatchSetupCheck.problems(
        conf("spark://h:7077", ENTRY).set("spark.executor.extraClassPath", "/opt/a.jar:/opt/rowmatch-spark.jar"),
        LOADER, DRIVER_JAR));
  }

  private static final RowmatchBuild BUILT_FOR_41 =
      new RowmatchBuild("4.1", "4.1.3", "2.13", "0.1.0", List.of("4.1", "4.2"));

  @Test
  void theJarKnowsTheSparkLineItWasCompiledAgainst() {
    RowmatchBuild build = RowmatchBuild.current();
    // The filtered resource and the Spark on the test class path (the one this module was compiled against).
    assertEquals(RowmatchBuild.lineOf(org.apache.spark.package$.MODULE$.SPARK_VERSION()), build.sparkLine());
    assertEquals(org.apache.spark.package$.MODULE$.SPARK_VERSION(), build.sparkVersion());
    assertTrue(build.supportedLines().contains(build.sparkLine()), build.toString());
    assertTrue(build.shadedJarName().matches("rowmatch-spark-plugin-spark" + build.sparkLine().replace(".", "\\.")
        + "_2\\.13-.+-shaded\\.jar"), build.shadedJarName());
    assertNull(RowmatchSetupCheck.lineMismatch(build, org.apache.spark.package$.MODULE$.SPARK_VERSION()));
  }

  @Test
  void sparkLineOfAVersion() {
    assertEquals("4.2", RowmatchBuild.lineOf("4.2.0"));
    assertEquals("4.1", RowmatchBuild.lineOf("4.1.3"));
    assertEquals("4.2", RowmatchBuild.lineOf("4.2.1-SNAPSHOT"));
    assertEquals("4.10", RowmatchBuild.lineOf("4.10.0"));
    assertEquals("5", RowmatchBuild.lineOf("5"));
  }

  @Test
  void sameLineOtherPatchIsFine() {
    assertNull(RowmatchSetupCheck.lineMismatch(BUILT_FOR_41, "4.1.0"));
    assertNull(RowmatchSetupCheck.lineMismatch(BUILT_FOR_41, "4.1.9-SNAPSHOT"));
  }

  @Test
  void otherSupportedLineNamesBothVersionsAndTheJarToUse() {
    String message = RowmatchSetupCheck.lineMismatch(BUILT_FOR_41, "4.2.0");
    assertTrue(message.contains("built for Spark 4.1 (rowmatch-spark-plugin-spark4.1_2.13-0.1.0-shaded.jar, against"
        + " Spark 4.1.3)"), message);
    assertTrue(message.contains("runs Spark 4.2.0"), message);
    assertTrue(message.contains("Rowmatch is OFF for this session"), message);
    assertTrue(message.contains("Use rowmatch-spark-plugin-spark4.2_2.13-0.1.0-shaded.jar (built with -Pspark-4.2)"),
        message);
  }

  @Test
  void unsupportedLineListsTheSupportedOnes() {
    String message = RowmatchSetupCheck.lineMismatch(BUILT_FOR_41, "3.5.8");
    assertTrue(message.contains("runs Spark 3.5.8") && message.contains("Rowmatch is OFF"), message);
    assertTrue(message.contains("jars for Spark 4.1, 4.2 only"), message);
  }
}
