package dev.idempotency.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The bill of materials has no parent (so that importing it imports nothing else), so nothing in
 * Maven keeps its version and artifact list equal to the build's: this test does. Every module of
 * the build that is published (not {@code maven.deploy.skip}) is in the BOM and in the parent's
 * dependencyManagement, at the build's version.
 */
class BomTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void theBomListsEveryPublishedModuleAtTheBuildsVersion() throws Exception {
    Document parent = parse(ROOT.resolve("pom.xml"));
    Document bom = parse(ROOT.resolve("idempotency-bom/pom.xml"));
    String version = childText(parent.getDocumentElement(), "version");

    TreeSet<String> published = new TreeSet<>();
    for (String module : childTexts(child(parent.getDocumentElement(), "modules"), "module")) {
      Document pom = parse(ROOT.resolve(module).resolve("pom.xml"));
      Element properties = child(pom.getDocumentElement(), "properties");
      boolean skipped =
          properties != null && "true".equals(childText(properties, "maven.deploy.skip"));
      String artifactId = childText(pom.getDocumentElement(), "artifactId");
      if (!skipped && !artifactId.equals("idempotency-bom")) {
        published.add(artifactId);
      }
    }

    assertThat(childText(bom.getDocumentElement(), "version"))
        .as(
            "idempotency-bom/pom.xml's <version> must be the build's version; set it when the version changes")
        .isEqualTo(version);
    assertThat(managedArtifacts(bom))
        .as(
            "idempotency-bom/pom.xml must manage every published module (a new module goes there too)")
        .containsExactlyInAnyOrderElementsOf(published);
    assertThat(managedArtifacts(parent))
        .as("the parent pom's dependencyManagement must manage every published module")
        .containsAll(published);
    assertThat(ROOT.resolve("LICENSE"))
        .as("the licence the poms name ships in the repository")
        .isRegularFile();
    assertThat(Files.readString(ROOT.resolve("LICENSE"))).contains("Apache License", "Version 2.0");
  }

  private static List<String> managedArtifacts(Document pom) {
    List<String> artifacts = new ArrayList<>();
    Element dependencies =
        child(child(pom.getDocumentElement(), "dependencyManagement"), "dependencies");
    NodeList list = dependencies.getElementsByTagName("dependency");
    for (int i = 0; i < list.getLength(); i++) {
      Element dependency = (Element) list.item(i);
      if ("dev.idempotency".equals(childText(dependency, "groupId"))) {
        artifacts.add(childText(dependency, "artifactId"));
      }
    }
    return artifacts;
  }

  private static Document parse(Path pom) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return factory.newDocumentBuilder().parse(pom.toFile());
  }

  private static Element child(Element parent, String name) {
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return e;
      }
    }
    return null;
  }

  private static String childText(Element parent, String name) {
    Element e = child(parent, name);
    return e == null ? null : e.getTextContent().trim();
  }

  private static List<String> childTexts(Element parent, String name) {
    List<String> texts = new ArrayList<>();
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        texts.add(e.getTextContent().trim());
      }
    }
    return texts;
  }
}
