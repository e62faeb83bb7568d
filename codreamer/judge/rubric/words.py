"""Word lists the rubric judge uses, kept apart so the rubric reads as rules."""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Common English function words. Their share of an email's words tells English
# prose from other languages; they are also the stop-words of content overlap.
EN_FUNCTION_WORDS = _words(
    """
    a about above across after again against all almost also although am among an and
    another any anyone anything are around as at be because been before being below
    between both but by can cannot could did do does doing done down during each either
    enough even ever every few for from further had has have having he her here hers him
    his how however i if in into is it its itself just least less let like may me might
    more most much must my myself neither no nor not now of off often on once one only
    onto or other others our ours out over own per perhaps quite rather same she should
    since so some something still such than that the their theirs them themselves then
    there these they this those though through thus to too toward towards under unless
    until up upon us very via was we well were what whatever when where whether which
    while who whom whose why will with within without would yet you your yours yourself
    s t m d ll re ve
    """
)

# Function words of languages an LLM most often slips into. Words that are also
# English (e.g. German "die", French "on") are left out.
FOREIGN_FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "French": _words(
        """le la les des du est et une un pour dans qui que avec sur pas nous vous votre vos
        au aux ce cette ces sont je mais ou où par plus leur leurs très être été avons avez
        ne se sa son ses mon ma mes notre nos elle ils elles lui y en"""
    ),
    "German": _words(
        """der das und ist nicht mit für sie ich wir ein eine einen einem einer zu den dem
        auf auch es sich bei ihr ihre ihren oder wie sind uns werden wird haben sehr
        kann können unser unsere unseren ihnen über nach vom zum zur"""
    ),
    "Italian": _words(
        """il lo gli della delle dei degli che con una sono questo questa nostro nostra
        vostro vostra siamo anche più molto del nel nella alla alle ci vi"""
    ),
    "Portuguese": _words(
        """os das dos uma não com para por que mais muito nosso nossa você vocês está são também
        pelo pela ao aos nas"""
    ),
    "Dutch": _words(
        """het een en niet met voor zijn wij jullie ons onze ook maar deze bij naar
        hebben heeft wordt kunnen"""
    ),
    "Spanish": _words(
        """el los las y del por para con una que su sus lo como más pero nuestro nuestra
        usted ustedes es está están muy sobre también le les se mi tu"""
    ),
}

# Words and phrases that add a step to an argument ("A, which means B"). The judge
# counts those the writer added on top of the cited content.
CONNECTIVE_WORDS = _words("because therefore thus hence so consequently")
CONNECTIVE_PHRASES = (
    "so that",
    "which means",
    "that means",
    "this means",
    "as a result",
    "in turn",
    "that is why",
    "that's why",
    "which is why",
    "this is why",
    "leads to",
    "lead to",
    "led to",
    "brings us to",
    "this is where",
    "that is where",
    "which is where",
    "on top of that",
    "building on",
    "given that",
    "due to",
    "driven by",
    "in other words",
)

# Phrases spam filters and readers both dislike (matched as whole words, lower case).
SPAM_PHRASES = (
    "act now",
    "buy now",
    "click here",
    "limited time",
    "limited offer",
    "order now",
    "risk-free",
    "risk free",
    "100% free",
    "100% guaranteed",
    "100% satisfied",
    "guarantee",
    "guaranteed",
    "no obligation",
    "once in a lifetime",
    "don't miss out",
    "dont miss out",
    "don't miss this",
    "exclusive deal",
    "special promotion",
    "urgent",
    "winner",
    "earn money",
    "earn cash",
    "extra cash",
    "extra income",
    "free gift",
    "free trial",
    "cash bonus",
    "amazing deal",
    "amazing offer",
    "incredible deal",
    "incredible offer",
    "best price",
    "lowest price",
    "apply now",
    "call now",
    "sign up now",
    "sign up today",
    "what are you waiting for",
    "double your",
    "$$",
)

# --- rubric v2: meaning, relevance, sendability ---------------------------------

# Synonym sets: every word of a line maps to the first word's concept (after
# stemming). General business and sales vocabulary plus the tools a prospect's
# tech stack names, so "pings dispatch in Geotab" meets "alerts the dispatcher in
# the telematics tools". Add a line to teach the judge a synonym.
SYNONYM_SETS = (
    "alert alarm warn warning notify notification ping flag",
    "detect catch spot notice discover identify",
    "record log logging capture track monitor reading readings logger",
    "minute minutes min mins",
    "temperature temp temperatures",
    "chill chilled cold cool cooled frozen freeze refrigerated",
    "warm warms warming heat hot heatwave",
    "spoil spoilage spoiled spoilt waste wasted ruin ruined rot",
    "loss lose lost losing writeoff",
    "reefer refrigeration refrigerator fridge compressor",
    "fail failure failures failing failed breakdown breakdowns fault faults faulty",
    "truck trucks trailer lorry vehicle van",
    "fleet fleets",
    "driver drivers driving",
    "dispatch dispatcher dispatchers dispatching",
    "customer client clients buyer buyers",
    "grocer grocery groceries supermarket retailer retailers retail",
    "audit auditor auditors inspection inspector inspectors regulator regulators compliance",
    "report reports reporting",
    "search searchable query lookup",
    "shipment consignment delivery deliveries load loads cargo haul",
    "margin margins profit profits profitability",
    "cost costs expense expenses spend",
    "fast quick quickly rapid rapidly promptly immediately instantly instant early",
    "problem issue challenge trouble difficulty headache pain",
    "integrate integration integrations connect connects plug sync syncs feed",
    "platform tool tools software system systems app apps application",
    "api apis sdk code programmatic programmatically python pytorch tensorflow jupyter",
    "interface ui dashboard screen screens",
    "telematics geotab samsara omnitracs fleetio motive verizon",
    "erp sap netsuite dynamics",
    "spreadsheet spreadsheets excel sheets paper clipboard manual handwritten",
    "evaluate evaluation assess assessment grade grading benchmark",
    "annotate annotation label labeling labelling labeler labeller tagging",
    "reviewer reviewers rater raters annotator annotators grader graders human humans people",
    "guideline guidelines rubric rubrics instruction instructions criteria criterion",
    "feedback comments",
    "validate validation verify verification check checking prove proof confirm",
    "synthetic artificial generated",
    "dataset datasets data",
    "model models llm llms",
    "consistent consistency consistently agree agreement aligned uniform disagree",
    "workflow workflows process processes pipeline",
    "metric metrics kpi kpis measure measurement measurements",
    "performance perform performs performing",
    "insurance insurer insurers premium premiums claim claims",
    "complaint complaints complain frustrate frustrated frustration unhappy",
    "trace traceability traceable",
    "peak peaks seasonal season holiday holidays",
    "turnover churn attrition",
    "gap gaps missing incomplete hole holes",
    "quality",
    "safety safe",
    "recall recalls",
    "regulation regulatory rules",
    "call chat conversation meeting talk",
    "demo demonstration walkthrough tour",
    "pilot trial",
    "discovery intro introduction",
)

# Words that carry no argument: they match everything, so they never count.
GENERIC_WORDS = _words(
    "team teams company companies business businesses work works working way ways thing things "
    "lot lots many much time times year years day days week weeks make makes made help helps "
    "helped new good great idea ideas today also want wanted like just really get gets "
    "use uses used using need needs needed one two three first last next every each "
    "hi hello dear best regards thanks thank sincerely cheers "
    "mr mrs ms dr "
    # Common words of free-text notes that say nothing about interests.
    "several own already open live lives living refuse refuses prepare preparing ask asks "
    "asked keep keeps kept last recent recently quarter month months upcoming coming "
    "summer winter autumn "
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday "
    "wrote write writes written owns complain says said told think thinks "
    "plan plans planning try tries trying look looking seem seems big small large "
    "another other different same sure yes okay still well able"
)

# Names of months and days: capitalised mid-sentence, yet no party's name.
CALENDAR_WORDS = _words(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday"
)

# A title's words imply what its holder cares about (concepts, after the synonym
# sets). A title word not listed still counts for itself.
ROLE_CONCEPTS: dict[str, str] = {
    "operations": "cost margin loss spoil delivery fleet efficiency",
    "ops": "cost margin loss spoil delivery fleet efficiency",
    "coo": "cost margin loss spoil delivery fleet efficiency",
    "quality": "audit record compliance recall quality validate guideline consistent",
    "qa": "audit record compliance recall quality validate guideline",
    "safety": "audit record compliance recall safety temperature",
    "compliance": "audit record compliance recall regulation",
    "logistics": "fleet driver delivery dispatch truck telematics route",
    "fleet": "fleet driver delivery dispatch truck telematics reefer",
    "transport": "fleet driver delivery dispatch truck telematics",
    "dispatch": "fleet driver delivery dispatch telematics alert",
    "supply": "delivery shipment cost fleet",
    "engineering": "api integrate metric model evaluate data workflow platform",
    "engineer": "api integrate metric model evaluate data workflow platform",
    "cto": "api integrate platform data model",
    "ml": "model evaluate metric data train performance",
    "ai": "model evaluate metric data train performance",
    "data": "data dataset quality validate metric model",
    "platform": "api integrate platform data",
    "ceo": "customer margin cost growth revenue risk",
    "founder": "customer margin cost growth revenue risk",
    "president": "customer margin cost growth revenue risk",
    "owner": "customer margin cost growth revenue risk",
    "cfo": "cost margin insurance loss profit",
    "finance": "cost margin insurance loss profit",
    "procurement": "cost price supplier",
    "purchasing": "cost price supplier",
    "sales": "customer growth complaint revenue",
    "marketing": "customer growth",
    "hr": "turnover train hiring",
    "people": "turnover train hiring",
}

# Sendability lexicons. Each is matched as whole words on the lower-cased text.
# Words inside brackets that make a placeholder ("[Your Name]", "[Company]"); a
# bracketed tag such as "[Discovery Call]" is not one.
PLACEHOLDER_WORDS = (
    "your",
    "insert",
    "name",
    "first",
    "last",
    "full",
    "company",
    "prospect",
    "recipient",
    "client",
    "customer",
    "title",
    "role",
    "date",
    "time",
    "link",
    "url",
    "sender",
    "product",
    "phone",
    "number",
    "email",
    "signature",
    "contact",
    "here",
    "x",
    "xx",
    "xxx",
)
PLACEHOLDER_NAMES = ("your name", "john doe", "jane doe", "john smith", "firstname lastname")

GRAPH_META = (
    "this node",
    "the node",
    "these nodes",
    "the nodes",
    "this concept connects",
    "concept connects",
    "connects to the",
    "knowledge graph",
    "the graph",
    "graph walk",
    "the edge",
    "this edge",
    "current_node",
    "current node",
    "node id",
    "need/challenge",
    "the customer job node",
    "product feature node",
    "customer job node",
    "the relationship",
)

INSULTS = (
    "amateurish",
    "amateur",
    "embarrassing",
    "incompetent",
    "clueless",
    "stupid",
    "idiot",
    "idiots",
    "idiotic",
    "pathetic",
    "lazy",
    "useless",
    "dumb",
    "ridiculous",
    "laughable",
    "a joke",
    "a mess",
    "mess it up",
    "no idea what",
    "have no clue",
    "sloppy",
    "moron",
    "worthless",
    "shameful",
    "hopeless",
    "inept",
    "clearly failing",
    "dinosaur",
)
THREATS = (
    "or else",
    "you will regret",
    "you'll regret",
    "let your board know",
    "tell your board",
    "let your boss know",
    "tell your boss",
    "cc your ceo",
    "copy your ceo",
    "we will report you",
    "i will report you",
    "legal action",
    "consequences",
    "we know where",
    "name and shame",
    "make sure everyone knows",
    "publicly",
    "blacklist",
)
PRESSURE = (
    "last chance",
    "final notice",
    "final warning",
    "before it's too late",
    "before it is too late",
    "act now",
    "act fast",
    "urgent",
    "urgently",
    "immediately respond",
    "respond immediately",
    "if i don't hear back",
    "if i do not hear back",
    "if we don't hear back",
    "if you don't respond",
    "if you do not respond",
    "your competitors have already",
    "your competitors already",
    "competitors are already",
    "only today",
    "expires today",
    "offer expires",
    "by end of day",
    "within 24 hours",
    "don't miss out",
    "you can't afford",
    "you cannot afford",
    "falling behind",
    "left behind",
    "no time to waste",
    "limited time",
    "i will assume",
    "i'll assume",
)
CREDENTIALS = (
    "password",
    "passcode",
    "passwords",
    "log in with",
    "login with",
    "sign in with",
    "verify your account",
    "confirm your account",
    "account details",
    "credentials",
    "username and",
    "your username",
    "bank details",
    "credit card",
    "card number",
    "social security",
    "gift card",
    "wire transfer",
    "one-time code",
    "2fa code",
    "security code",
    "pin code",
)
AI_DISCLAIMERS = (
    "as an ai",
    "ai language model",
    "as a language model",
    "large language model",
    "i am an ai",
    "i'm an ai",
    "i cannot browse",
    "i can't browse",
    "i do not have personal",
    "i don't have personal",
    "i don't have access to real-time",
    "my training data",
    "knowledge cutoff",
    "openai",
    "chatgpt",
    "as an assistant",
)
PADDING_PHRASES = (
    "i hope this message finds you well",
    "i hope this email finds you well",
    "i hope this finds you well",
    "i hope you are doing well",
    "i hope you're doing well",
    "i know how busy",
    "i know your inbox",
    "i truly appreciate",
    "thank you for taking",
    "i wanted to take a moment",
    "i wanted to take a little time",
    "without further ado",
    "at the end of the day",
    "it goes without saying",
    "needless to say",
    "in today's fast-paced",
    "in today's world",
    "ever-changing",
    "ever-evolving",
    "as you may know",
    "as you know",
    "i wanted to reach out",
    "just wanted to reach out",
    "just circling back",
    "touching base",
    "reflect",
    "reflection",
    "i am writing to share some information",
    "i wanted to share a thought",
    "to whom it may concern",
    "dear sir or madam",
    "dear sir/madam",
)
# Words that ask for something (a question with one of them, or an imperative, is an ask).
ASK_WORDS = _words(
    "open free available availability interested worth work suit suits convenient "
    "call chat meeting meet demo walkthrough pilot trial talk conversation minutes "
    "schedule book set arrange time slot connect"
)
ASK_IMPERATIVES = (
    "let me know",
    "book a",
    "book time",
    "schedule a",
    "grab a",
    "pick a time",
    "reply with",
    "reply to",
    "send me",
    "click",
    "sign up",
    "register",
    "please confirm",
    "please schedule",
    "please book",
    "hit reply",
    "drop me",
)

# Words after a number that make it a meeting size, not a claim ("a 30-minute call").
TIME_UNITS = _words(
    "minute minutes min mins hour hours hr week weeks day days month months am pm "
    "truck trucks vehicle vehicles site sites people calls"
)
# Words near which a claim about named customers or results may sit.
CLAIM_TRIGGERS = _words(
    "like such including incl use uses used relies rely trust trusts chose switched saw cut "
    "reduced saved increased doubled tripled halved achieved grew"
)
SELL_VERBS = _words("offer provide sell generate produce create build deliver supply")
COMPANY_SUFFIXES = _words("inc ltd llc gmbh plc co corp group company the of")


def _stems(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# How an email frames its case (the `fit` criterion): what goes wrong, what changes,
# or how it works. A token counts for a frame when it starts with one of its stems.
FRAME_STEMS: dict[str, tuple[str, ...]] = {
    "risk": _stems(
        "risk fail miss lose losing loss late delay penalt fine recall breach expos downtime "
        "error incident problem pressure worr costly spoil waste write blind broke break "
        "danger liabil violat warning bottleneck unreliab gap struggl pain exposure hurt "
        "threat complain stuck manual slow"
    ),
    "outcome": _stems(
        "save saving cut reduc lower faster sooner quicker fewer revenue margin profit growth "
        "grow return roi payback efficien result improv increas boost gain win hours change "
        "better value outcome benefit free week month quarter bottom competit scale "
        "confiden peace"
    ),
    "how": _stems(
        "how works integrat api connect plug sensor pipeline automat trigger configur setup "
        "install model algorithm dashboard stream log record read send detect measur check "
        "flag sync generat validat step workflow architect data system track monitor "
        "process run tool method technique schema"
    ),
}
