"""The words issued passwords are made of (gm.campaign.passwords.issue_password): common,
short, lowercase English words of letters a-z only, easy to read out and to type on a
phone, each once. Their number sets a password's strength: five of these 1,329 hold
51.9 bits, past the 48 docs/rules/postal.md ("Passwords and RESET") asks for."""

WORDS: tuple[str, ...] = tuple("""
able acid acorn actor adobe adult aft agent agile aging agree ahead aid aim air aisle alarm
album alder alert algae alien alike alive alley allow aloe alpha altar amber amble amend amid
ample amuse angel angle ankle annex anvil apple apron aqua arbor arch arena argue arm armor army
aroma array arrow art ash aside aspen atlas atom attic audio aunt auto avid awake award axis
azure baby bacon badge bagel bake baker balm bamboo banjo bank barge bark barn baron basil basin
basket batch bath baton beach beacon bead beak beam bean bear beard beast beech beef beet begin
bell belt bench berry bike binder birch bird bison blade blank blaze blend bless blimp blink
bliss block bloom blue blunt blush board boat body bolt bonus book boost boot booth bosun bottle
bow bowl box brave bread brick bride brief brim brisk broad brook broom brush bucket buddy
budget buggy build bulb bunch bunny burst bus bush butter button buzz cabin cable cactus cadet
cafe cage cake calm camel camp canal candy canoe canvas canyon cape car card cargo carol carpet
carrot cart carve case cash castle cat cedar cello chain chair chalk champ chant chap charm
chart chase cheek cheer cheese cherry chess chest chief child chili chime chip chord cider
cinema circle citrus city civic claim clam clap clay clean clear clerk click cliff climb clock
cloth cloud clover clown club clue coach coast coat cobalt cocoa coconut code coffee coil coin
comet comic comma cone coral cord core cork corn cotton couch cough count court cousin cove
cover cow crab craft crane crate crawl crayon cream creek crest crew crisp crop cross crow crown
crumb crust cube cup curl curve cushion cycle daily dairy daisy dance dandy dart dash date dawn
deal decal deck decoy deed deer delta denim depot depth desk dial diary diet digit dime diner
dingo dish ditto diver dock dodge dog doll dolphin dome donor donut door dot dove dozen draft
dragon drama drape draw dream dress drift drill drink drive drum duck dune dusk dust duty dwarf
eager eagle early earth easel east easy echo edge eel egg eight elbow elder elite elk elm ember
emu enjoy entry envoy epic equal era erase essay even event exact exit expo extra fable fabric
face fact fair fairy faith falcon fame fancy farm fast fault fawn feast feather fence fern ferry
fetch fever fiber fiddle field fifty fig film final finch find fire first fish five flag flame
flash flask fleet flint flip float flock floor flour flower flute foam focus fog foil folk font
food force forest fork form fort forum fossil found fox frame fresh fridge frog frost fruit
fudge fuel fun fund funny fur gadget gala galaxy game garage garden garlic gate gauge gear gecko
gem genie giant gift ginger giraffe given glad glade glass glaze glide globe glove glow glue
gnome goal goat gold golf good goose gorge gown grace grain grand grape graph grass gravy great
green grid grill grin grove growl guard guava guess guest guide guitar gull gum guppy gust habit
hair half hall halo hammer hand handy happy harbor harp harvest hat hatch haven hawk hazel head
heart heat hedge helix helmet help hen herb hero heron hike hill hinge hippo hobby hockey holly
home honey hood hook hope horn horse host hotel hour house hub hug human humor hunch hurry hush
hut ice icicle icon idea igloo image inch index ink inlet input iris iron island item ivory ivy
jacket jade jaguar jam jar jazz jeans jelly jet jewel jig job jog join joke jolly journal joy
judge juice jumbo jump jungle junior jury kale kayak keen keep kettle key kick kid kind king
kiosk kite kitten kiwi knee knife knob knot koala label lace ladder lady lagoon lake lamb lamp
lance land lane lantern lap large laser latch late laugh lava lawn layer leaf lean leap learn
ledge lemon lens level lever lid light lilac lily lime limit linen lion list liter lizard llama
loaf lobby local lock locket lodge loft logic long loom loop lotus loud lounge love lucky lunar
lunch lute lyric macaw magic magnet maid mail major mango manor map maple marble march mare
market marsh mask mason match meadow meal medal melon memo mentor menu merit mesa metal meter
midday mild milk mill mimic mind mint minute mirror mist mitten mix moat model modem mole mom
moment monk month moon moose moss motel moth motor mound mouse mouth movie mud muffin mug mule
mural muse museum music nail name nap napkin narrow navy near neat nectar needle nest net new
news nice night nimble nine noble node noise noodle noon north nose note novel number nurse nut
nutmeg oak oar oasis oat ocean octave odd offer office olive omega onion open opera optic orange
orbit orchid order organ otter ounce outer oval oven owl owner oxygen oyster pace pad paddle
page pail paint pair palace palm panda panel pantry paper parade park parrot party pasta paste
patch path patio pause peach peak peanut pear pearl pebble pecan pedal pen pencil penny pepper
perch piano pickle picnic pie pier pig pillow pilot pine pink pint pipe pirate pitch pixel pizza
place plain plan planet plank plant plate play plaza plum plus pocket poem poet point polar pole
polka pond pony pool poppy porch port post pot potato pouch power prairie press pretty price
prince print prism prize proud prune puck pudding puffin pulse pump punch pupil puppy purple
purse puzzle quack quail quake quart queen quest quick quiet quill quilt quiz quota rabbit race
radar radio radish raft rail rain rainbow raisin rake ramp ranch range rapid raven razor reach
ready recipe red reef relax relay remedy rhino rhyme ribbon rice rich ride ridge right rim ring
rinse ripple river road robin robot rock rocket rodeo roof room root rope rose rotor rough round
route rover rowan royal ruby rug ruler rumba run rural rust sable saddle safe saga sage sail
salad salmon salsa salt sample sand sandal satin sauce sauna savor scale scarf scene scone scoop
scout scrap screen script scroll sea seal season seat secret seed segment shade shadow shake
shape share shark sharp shawl sheep shelf shell shift shine ship shirt shoe shore short shovel
shower shrub sierra signal silk silver simple siren sister sketch ski skill skirt skunk sky
slate sled sleep sleeve slice slope smile smoke snack snail snow soap soccer sock sofa soft
solar solid sonar song sonnet soup south space spade spark spice spider spine spiral spoon sport
spray spring sprout spruce square squid stable staff stage stair stamp star start statue steam
steel stem step stew stick still stone stool storm story stove straw stream street string stripe
strong studio sugar suit summer summit sun sunny super surf swan sweater sweet swift swing syrup
table tablet taco tail talent tango tank tape target taxi tea teacup team teapot tennis tent
thank theory thread three thumb thunder ticket tide tiger tile timber time tiny toast today
token tomato tone tool tooth topaz torch total tower town toy track trail train tram travel tray
treat tree trend trial tribe trick trio trophy truck trumpet trunk trust tuba tulip tuna tunnel
turkey turnip turtle tutor tweed twig twin ultra umber umpire uncle under unicorn union unit
upper urban usher utmost vacuum valley value valve van vanilla vapor vase vault velvet venue
verb verse vest video view villa vine vinyl violet violin virtue visa vision visit visor vital
vivid vocal voice volume voter voyage wafer wagon waist walk wall walnut walrus wand warm wave
wax way wealth weave wedge week well west whale wheat wheel whisk whistle wick wide widget wild
willow wind window wing winter wire wise wish wizard wolf wonder wood wool word work world worm
wreath wren wrist yacht yak yard yarn year yeast yellow yes yeti yodel yogurt young yummy zany
zebra zero zest zigzag zinc zipper zone zoo zoom
""".split())
