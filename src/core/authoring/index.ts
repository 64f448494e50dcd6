export { LinkIndex, type CitationReference, type LinkReference } from './linkIndex';
export { PageLanguageService } from './pageLanguageService';
export type * from './pageLanguageService';
export type * from './ports';
export { PageSearch, type PageHit } from './pageSearch';
export { followMovedPage, planRename, renamePage, retargetLinks, retargetPageText, type RenamePlan, type RenameResult } from './rename';
export { headingsOf, outlineOf, type Heading, type OutlineSymbol } from './headings';
export { buildWikiGraph } from './graph';
export { wikiPreviewPlugin, headingFragment, type PreviewLinkOptions, type PreviewLocation } from './previewLinks';
