package io.headscope.app.cli;

import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** Command-line tests on a tiny random BERT folder written once per class into the class's own folder. */
abstract class OnTinyModel {
  @TempDir static Path dir;
  static Path model;

  @BeforeAll
  static void writeModel() {
    model = TinyBert.create(2, 2, 3).writeTo(dir.resolve("tiny")).config().getParent();
  }
}
