package io.headscope.app.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * The compiled main classes of every module, imported once for all the architecture tests. The other
 * modules come as jars in a full build and as class folders in a module build: both are imported, but
 * no test classes (their folders, and the model's test-jar of shared test helpers).
 */
final class MainClasses {
  private static JavaClasses all;

  private MainClasses() {}

  static synchronized JavaClasses all() {
    if (all == null) {
      all = new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .withImportOption(location -> !location.contains("-tests.jar") && !location.contains("/test-classes/"))
          .importPackages("io.headscope");
    }
    return all;
  }
}
